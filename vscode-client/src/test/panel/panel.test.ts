/**
 * The chat panel page in headless Chromium, with a stubbed `acquireVsCodeApi`: what the user
 * sees for a streamed turn, and what the page asks the extension host to do.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { chatHtml } from "../../html";
import type { HostMessage } from "../../messages";
import { CHROMIUM, launchChromium, privateHome } from "../browser";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const DIST = path.join(ROOT, "dist");
const SKIP = !fs.existsSync(CHROMIUM) ? `no Chromium at ${CHROMIUM}` : false;

// The webview API as VS Code gives it: the state set is kept by the host, not by the page
// (`reloadWith` hands it to the reloaded page, as VS Code does when it restores a webview).
const STUB = `
  window.__posted = [];
  window.__state = null;
  window.acquireVsCodeApi = () => ({
    postMessage: (m) => window.__posted.push(m),
    getState: () => window.__state,
    setState: (s) => { window.__state = s; },
  });
`;

let browser: Browser;
let page: Page;
let pageUrl: string;
let homeDir = "";

before(async () => {
  if (SKIP) {
    return;
  }
  const home = privateHome("agent-ls-panel-");
  homeDir = home.dir;
  const file = path.join(home.dir, "panel.html");
  fs.writeFileSync(
    file,
    chatHtml({
      cspSource: "file:",
      scriptUri: pathToFileURL(path.join(DIST, "webview.js")).toString(),
      styleUri: pathToFileURL(path.join(DIST, "webview.css")).toString(),
      nonce: "testnonce123",
    }),
  );
  pageUrl = pathToFileURL(file).toString();
  browser = await launchChromium(home.env);
});

after(async () => {
  await browser?.close();
  if (homeDir) {
    fs.rmSync(homeDir, { recursive: true, force: true });
  }
});

beforeEach(async () => {
  if (SKIP) {
    return;
  }
  const context = await browser.newContext({ viewport: { width: 420, height: 700 } });
  page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") {
      errors.push(m.text());
    }
  });
  await page.addInitScript(STUB);
  await page.goto(pageUrl);
  await page.waitForFunction(() => (window as unknown as { __posted: unknown[] }).__posted.length > 0);
  assert.deepEqual(errors, [], "the page loads without errors (CSP included)");
});

/** Posts the host's messages and returns once the page has handled all of them (a marker
 * posted last arrives last: window messages from one source are delivered in order). */
async function host(...messages: HostMessage[]): Promise<void> {
  await page.evaluate(
    (all) =>
      new Promise<void>((resolve) => {
        const marker = `host-done-${Math.random()}`;
        const done = (event: MessageEvent) => {
          if (event.data === marker) {
            window.removeEventListener("message", done);
            resolve();
          }
        };
        window.addEventListener("message", done);
        for (const m of all) {
          window.postMessage(m, "*");
        }
        window.postMessage(marker, "*");
      }),
    messages,
  );
}

/** Reloads the page with the state it last set, as VS Code restores a webview's state. */
async function reloadWith(): Promise<void> {
  const saved = await page.evaluate(() => (window as unknown as { __state: unknown }).__state);
  await page.addInitScript((s) => {
    (window as unknown as { __state: unknown }).__state = s;
  }, saved);
  await page.reload();
}

async function posted(): Promise<unknown[]> {
  return page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted);
}

const progress = (kind: string, rest: Record<string, unknown>): HostMessage =>
  ({ type: "progress", event: { kind, sessionId: "s1", ...rest } }) as HostMessage;

const PLAN_TURN: HostMessage[] = [
  { type: "turnStarted", message: "Add a greeting module", context: { uri: "file:///w/src/app.py" } },
  progress("text", { delta: "Here is the module:\n\n```python\ndef greet(name):\n    return f'Hi {name}'\n```\n" }),
  progress("tool_call", { name: "list_files", args: { path: "/" } }),
  progress("tool_result", { name: "list_files", ok: true, text: "src/app.py\nold.txt" }),
  progress("plan", { description: "Add a greeting module", files: ["src/new.py", "src/app.py"] }),
  progress("file_applied", { path: "src/new.py", action: "create_file", message: "", planned: true }),
];

test("ready is posted on load; Enter sends the message with the session id", { skip: SKIP }, async () => {
  assert.deepEqual(await posted(), [{ type: "ready" }]);
  await page.fill("#message", "Rename foo to bar");
  await page.press("#message", "Enter");
  assert.deepEqual((await posted()).at(-1), { type: "send", text: "Rename foo to bar" });
  assert.equal(await page.inputValue("#message"), "", "the box is cleared");
  await page.press("#message", "Enter");
  assert.equal((await posted()).length, 2, "an empty message is not sent");
});

test("a streamed turn: markdown with highlighted code, a collapsible tool row, the plan's statuses", { skip: SKIP }, async () => {
  await host(...PLAN_TURN);
  await page.waitForSelector(".plan-file.status-applied");
  assert.equal(await page.textContent(".entry.user .context"), "app.py");
  assert.ok(await page.isVisible("pre.hljs[data-lang=python] .hljs-keyword"), "python is highlighted");
  assert.match((await page.textContent(".entry.assistant")) ?? "", /Here is the module/);
  const tool = page.locator("details.entry.tool");
  assert.equal(await tool.locator("summary").textContent(), "list_files — done");
  assert.equal(await tool.locator(".tool-result").isVisible(), false, "collapsed by default");
  await tool.locator("summary").click();
  assert.equal(await tool.locator(".tool-result").textContent(), "src/app.py\nold.txt");
  const rows = await page.locator(".plan-file").evaluateAll((els) => els.map((e) => [e.querySelector(".link")?.textContent, e.className]));
  assert.deepEqual(rows, [
    ["src/new.py", "plan-file status-applied"],
    ["src/app.py", "plan-file status-pending"],
  ]);
  // While the turn runs: Stop is offered, Send / Undo / Redo are not.
  assert.ok(await page.isVisible("#stop"));
  assert.ok(await page.isDisabled("#send"));
  assert.ok(await page.isDisabled("#undo"));
  await page.click("#stop");
  assert.deepEqual((await posted()).at(-1), { type: "stop" });
  // A second text delta re-renders the answer but keeps the tool row open.
  await host(progress("text", { delta: "More." }));
  assert.equal(await tool.locator(".tool-result").isVisible(), true);
});

test("after the turn: final statuses, a click opens the diff, Undo and Redo ask the host", { skip: SKIP }, async () => {
  await host(...PLAN_TURN, {
    type: "turnEnded",
    result: {
      sessionId: "s1",
      text: "",
      blocks: [],
      plan: { description: "Add a greeting module", files: ["src/new.py", "src/app.py"], applied: ["src/new.py"], skipped: ["src/app.py"], unplanned: [] },
      checkpointId: "cp42",
    },
  });
  await page.waitForSelector(".plan-file.status-skipped");
  assert.ok(await page.isHidden("#stop"));
  await page.click(".plan-file >> text=src/new.py");
  assert.deepEqual((await posted()).at(-1), { type: "openDiff", checkpointId: "cp42", path: "src/new.py" });
  await page.click("#undo");
  await page.click("#redo");
  assert.deepEqual((await posted()).slice(-2), [{ type: "undo" }, { type: "redo" }]);
  await host({ type: "notice", level: "info", text: "Undo of cp42: src/new.py (deleted)" });
  assert.equal(await page.textContent(".notice.info"), "Undo of cp42: src/new.py (deleted)");
});

test("errors are shown in the panel", { skip: SKIP }, async () => {
  await host(
    { type: "turnStarted", message: "hi" },
    progress("error", { message: "provider unreachable: connection refused" }),
    { type: "turnEnded", error: "provider unreachable: connection refused" },
  );
  await page.waitForSelector(".notice.error >> nth=1");
  const texts = await page.locator(".notice.error").allTextContents();
  assert.deepEqual(texts, ["provider unreachable: connection refused", "Error: provider unreachable: connection refused"]);
});

test("model text cannot inject HTML into the panel", { skip: SKIP }, async () => {
  await host({ type: "turnStarted", message: "x" }, progress("text", { delta: '<img src=x onerror="window.__pwned=1"> **bold**' }));
  await page.waitForSelector(".entry.assistant strong");
  assert.equal(await page.locator(".entry.assistant img").count(), 0);
  assert.match((await page.textContent(".entry.assistant")) ?? "", /<img src=x/);
});

test("sessions: New chat, the list, switching back; the transcript survives a reload", { skip: SKIP }, async () => {
  await host({ type: "turnStarted", message: "first question" }, { type: "turnEnded", result: { sessionId: "a", text: "first answer", blocks: [] } });
  await page.click("#new-chat");
  assert.equal(await page.locator(".entry").count(), 0);
  await page.fill("#message", "second");
  await page.press("#message", "Enter");
  assert.deepEqual((await posted()).at(-1), { type: "send", text: "second" }, "a new chat has no session id yet");
  await host({ type: "turnStarted", message: "second" }, { type: "turnEnded", result: { sessionId: "b", text: "second answer", blocks: [] } });
  assert.deepEqual(await page.locator("#sessions option").allTextContents(), ["first question", "second"]);
  await page.selectOption("#sessions", "0");
  assert.match((await page.textContent("#transcript")) ?? "", /first answer/);
  await page.fill("#message", "follow-up");
  await page.press("#message", "Enter");
  assert.deepEqual((await posted()).at(-1), { type: "send", text: "follow-up", sessionId: "a" });
  await reloadWith();
  await page.waitForSelector(".entry.assistant");
  assert.match((await page.textContent("#transcript")) ?? "", /first answer/);
  assert.equal(await page.locator("#sessions option").count(), 2);
});

const STAGED = {
  planId: "p1",
  state: "pending" as const,
  description: "Add a greeting module",
  files: [
    { path: "src/new.py", op: "create" as const, state: "pending" as const },
    { path: "src/app.py", op: "update" as const, state: "pending" as const },
  ],
};

test("a staged plan: diff, Accept / Reject per file and for the plan, then the true badges", { skip: SKIP }, async () => {
  await host(
    { type: "turnStarted", message: "Add a greeting module" },
    { type: "progress", event: { kind: "review", sessionId: "s1", ...STAGED } },
    { type: "turnEnded", result: { sessionId: "s1", text: "", blocks: [], plan: STAGED } },
  );
  await page.waitForSelector(".entry.plan.review");
  assert.deepEqual(await page.locator(".plan-file .badge").allTextContents(), ["pending · create", "pending · update"]);
  await page.click(".plan-file >> text=src/app.py");
  await page.click(".plan-file.status-pending:has-text('src/app.py') button.reject");
  await page.click(".plan-file.status-pending:has-text('src/new.py') button.accept");
  await page.click("button.accept-all");
  await page.click("button.reject-all");
  assert.deepEqual((await posted()).slice(-5), [
    { type: "openStagedDiff", planId: "p1", path: "src/app.py" },
    { type: "reject", planId: "p1", files: ["src/app.py"] },
    { type: "accept", planId: "p1", files: ["src/new.py"] },
    { type: "accept", planId: "p1" },
    { type: "reject", planId: "p1" },
  ]);
  await host({
    type: "reviewed",
    plan: { ...STAGED, state: "partial", checkpointId: "cp7", files: [{ ...STAGED.files[0], state: "accepted" }, { ...STAGED.files[1], state: "rejected", reason: "keep print" }] },
  });
  await page.waitForSelector(".entry.plan.done");
  const rows = await page.locator(".plan-file").evaluateAll((els) => els.map((e) => [e.className, e.querySelector(".badge")?.textContent]));
  assert.deepEqual(rows, [
    ["plan-file status-applied", "applied · create"],
    ["plan-file status-rejected", "rejected · update"],
  ]);
  assert.equal(await page.locator("button.accept, button.reject, button.accept-all").count(), 0, "nothing left to decide");
  assert.equal(await page.textContent(".plan-file.status-rejected .reason"), "keep print");
  await host({ type: "moved", undo: true, result: { checkpointId: "cp7", files: [{ path: "src/new.py", exists: false }], overridden: [] } });
  await page.waitForSelector(".plan-file.status-undone");
  assert.equal(await page.textContent(".plan-file.status-undone .badge"), "undone · create");
});

test("a server that cannot start is shown atop the panel", { skip: SKIP }, async () => {
  assert.ok(await page.isHidden("#server-error"));
  await host({ type: "status", provider: "openai", model: "m", serverRunning: false, error: "agent-ls server not found: /nope is not an executable file." });
  assert.match((await page.textContent("#server-error")) ?? "", /not running: agent-ls server not found: \/nope/);
  assert.ok(await page.isVisible("#server-error"));
  await host({ type: "status", provider: "openai", model: "m", serverRunning: true });
  assert.ok(await page.isHidden("#server-error"));
});
