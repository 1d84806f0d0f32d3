/**
 * A multi-root workspace in a real VS Code (code-server): a `.code-workspace` file with the
 * folders `front` and `back`, both holding a `src/app.py`. The server names every path by its
 * folder (`back/src/app.py`); the panel's links must open the second folder's file, its
 * checkpoint diff (read from that folder's own store) and its staged diff, never the first
 * folder's file of the same relative path.
 *
 * Needs CODE_SERVER and VSIX like vscode.test.ts (ci.sh sets both); skipped without them.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { Browser, FrameLocator, Page } from "playwright-core";
import { CHROMIUM, launchChromium, privateHome } from "../browser";
import { type Service, installExtension, startCodeServer, startFakeLLM } from "./processes";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const PYTHON = process.env.AGENT_LS_PYTHON ?? path.join(REPO, ".venv", "bin", "python");
const SERVER = process.env.AGENT_LS_SERVER ?? path.join(REPO, ".venv", "bin", "agent-ls");
const CODE_SERVER = process.env.CODE_SERVER ?? "";
const VSIX = process.env.VSIX ?? "";
const missing = [
  [CODE_SERVER, "CODE_SERVER"],
  [VSIX, "VSIX"],
  [CHROMIUM, "Chromium"],
  [PYTHON, "the project's Python"],
  [SERVER, "agent-ls"],
].filter(([file]) => !file || !fs.existsSync(file));
const SKIP = missing.length ? `missing ${missing.map(([, name]) => name).join(", ")}` : false;
if (SKIP && process.env.AGENT_LS_E2E_REQUIRED === "1") {
  throw new Error(`end-to-end test required but ${SKIP}`);
}

const FRONT = { "src/app.py": "print('front')\n" };
const BACK = { "src/app.py": "print('back')\n", "x.py": "X = 1\n" };
const BACK_V2 = "print('back v2')\n";

const doc = (document: unknown) => JSON.stringify(document);
/** A plan that changes the second folder's src/app.py (the first has one too). */
const PLAN = [
  doc({
    action: "start_multi_file",
    plan: { description: "Bump the back end", files_to_modify: ["/back/src/app.py"] },
    first_file: { action: "update_file", file: { path: "/back/src/app.py", content: BACK_V2 } },
  }),
  doc({ action: "text_response", text_response: "Bumped back/src/app.py." }),
];

function seed(root: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content);
  }
}

const read = (file: string) => fs.readFileSync(file, "utf8");

let browser: Browser | undefined;
let page: Page;
let homeDir = "";
let front = "";
let back = "";
let workspaceFile = "";
let llmUrl = "";
let logs = "";
let keepLogs = false;
const services: Service[] = [];

before(async () => {
  if (SKIP) {
    return;
  }
  const home = privateHome("agent-ls-multiroot-");
  homeDir = home.dir;
  front = path.join(home.dir, "front");
  back = path.join(home.dir, "back");
  seed(front, FRONT);
  seed(back, BACK);
  workspaceFile = path.join(home.dir, "two.code-workspace");
  fs.writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: "front" }, { path: "back" }], settings: {} }));
  const llm = await startFakeLLM(PYTHON, REPO, { replies: PLAN }, home.dir, home.env);
  services.push(llm);
  llmUrl = llm.url;
  const dirs = { userData: path.join(home.dir, "user-data"), extensions: path.join(home.dir, "extensions") };
  fs.mkdirSync(path.join(dirs.userData, "User"), { recursive: true });
  fs.writeFileSync(
    path.join(dirs.userData, "User", "settings.json"),
    JSON.stringify({
      "agentLs.serverPath": SERVER,
      "agentLs.baseUrl": `${llm.url}/v1`,
      "agentLs.model": "fake-model",
      "agentLs.retryBaseDelay": 0.05,
      "agentLs.trace.server": "messages",
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "workbench.welcomePage.walkthroughs.openOnInstall": false,
      "security.workspace.trust.enabled": false,
      "telemetry.telemetryLevel": "off",
      "extensions.ignoreRecommendations": true,
      "update.mode": "none",
      "chat.disableAIFeatures": true,
      "files.autoSave": "off",
      "workbench.secondarySideBar.defaultVisibility": "hidden",
    }),
  );
  logs = await installExtension(CODE_SERVER, VSIX, dirs, home.env);
  const codeServer = await startCodeServer(CODE_SERVER, dirs, home.dir, home.env);
  services.push(codeServer);
  browser = await launchChromium(home.env);
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${codeServer.url}/?workspace=${encodeURIComponent(workspaceFile)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: 90_000 });
});

after(async () => {
  await browser?.close();
  for (const service of services.reverse()) {
    await service.stop();
  }
  if (homeDir && !keepLogs) {
    fs.rmSync(homeDir, { recursive: true, force: true });
  }
});

function panel(): FrameLocator {
  return page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
}

async function runCommand(title: string): Promise<void> {
  await page.keyboard.press("F1");
  await page.waitForSelector(".quick-input-widget input", { state: "visible" });
  await page.keyboard.type(title);
  await page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label^="${title}"]`);
  await page.keyboard.press("Enter");
}

async function closeEditors(): Promise<void> {
  await runCommand("View: Close All Editors");
  await page.waitForFunction(() => document.querySelectorAll(".tabs-container .tab").length === 0, undefined, { timeout: 30_000 });
}

async function pictured(name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    keepLogs = true;
    const file = path.join(homeDir, `${name}-failure.png`);
    await page.screenshot({ path: file }).catch(() => undefined);
    throw new Error(`${String(error)}\nscreenshot: ${file}\nlogs: ${homeDir}`, { cause: error });
  }
}

async function setScript(script: unknown): Promise<void> {
  const response = await fetch(`${llmUrl}/_control/script`, { method: "POST", body: JSON.stringify(script) });
  assert.equal(response.status, 200, await response.text());
}

/** Wait until a diff editor shows `original` on its left and `modified` on its right. */
async function diffShows(original: string, modified: string): Promise<void> {
  await page.waitForFunction(
    ([left, right]) =>
      [...document.querySelectorAll(".monaco-diff-editor")].some(
        (diff) =>
          diff.querySelector(".editor.original .view-lines")?.textContent?.replace(/\u00a0/g, " ").includes(left) &&
          diff.querySelector(".editor.modified .view-lines")?.textContent?.replace(/\u00a0/g, " ").includes(right),
      ),
    [original, modified],
    { timeout: 30_000 },
  );
}

async function chatTurn(chat: FrameLocator, message: string): Promise<void> {
  await chat.locator("#message").fill(message);
  await chat.locator("#message").press("Enter");
}

test("multi-root: the panel's links open the second folder's file, checkpoint diff and staged diff", { skip: SKIP, timeout: 300_000 }, (t) =>
  pictured("multiroot", async () => {
    t.diagnostic(logs.trim());
    // The extension is up once its status bar item shows the server's provider.
    await page.waitForFunction(() => document.querySelector(".statusbar")?.textContent?.includes("openai · fake-model"), undefined, { timeout: 90_000 });
    await runCommand("Agent: Chat");
    const chat = panel();
    await chat.locator("#message").waitFor({ timeout: 60_000 });

    // A plan in the second folder: the row names the file by its folder.
    await chatTurn(chat, "Bump the back end");
    await chat.locator(".entry.plan.done").waitFor({ timeout: 120_000 });
    assert.equal(read(path.join(back, "src/app.py")), BACK_V2);
    assert.equal(read(path.join(front, "src/app.py")), FRONT["src/app.py"]);
    assert.deepEqual(await chat.locator(".plan-file .link").allTextContents(), ["back/src/app.py"]);

    // Its checkpoint diff: back's pre-image (back's store) against back's file now.
    await chat.locator(".plan-file .link", { hasText: "back/src/app.py" }).click();
    await diffShows("print('back')", "print('back v2')");

    // "Agent: Checkpoints" lists the qualified file; picking it opens the same diff.
    await closeEditors();
    await page.waitForFunction(() => document.querySelectorAll(".monaco-diff-editor").length === 0, undefined, { timeout: 30_000 });
    await runCommand("Agent: Checkpoints");
    await page.waitForSelector('.quick-input-list .monaco-list-row[aria-label*="Bump the back end"]', { timeout: 30_000 });
    await page.keyboard.press("Enter");
    await page.waitForSelector('.quick-input-list .monaco-list-row[aria-label^="back/src/app.py"]', { timeout: 30_000 });
    await page.keyboard.press("Enter");
    await diffShows("print('back')", "print('back v2')");

    await chat.locator("#undo").click();
    await chat.locator(".notice.info", { hasText: "Undo of" }).waitFor({ timeout: 60_000 });
    assert.equal(read(path.join(back, "src/app.py")), BACK["src/app.py"]);
    await closeEditors();

    // Review mode (the workspace file's settings): the staged diff is against back's file.
    fs.writeFileSync(
      workspaceFile,
      JSON.stringify({ folders: [{ path: "front" }, { path: "back" }], settings: { "agentLs.model": "review-model", "agentLs.review": "on" } }),
    );
    await page.waitForFunction(() => document.querySelector(".statusbar")?.textContent?.includes("openai · review-model"), undefined, { timeout: 30_000 });
    await setScript({ replies: PLAN });
    await chatTurn(chat, "Bump the back end, for review");
    const plan = chat.locator(".entry.plan.review").last();
    const row = plan.locator(".plan-file", { hasText: "back/src/app.py" });
    await plan.locator(".plan-file.status-pending").waitFor({ timeout: 120_000 });
    await chat.locator("#send:enabled").waitFor({ timeout: 60_000 });
    await row.locator(".link").click();
    await diffShows("print('back')", "print('back v2')");

    // Rejected, its link opens the file itself: back's, not front's src/app.py.
    await closeEditors();
    await row.locator("button.reject").click();
    await page.waitForSelector(".quick-input-widget .quick-input-title:has-text('Reject back/src/app.py')", { state: "visible", timeout: 30_000 });
    await page.keyboard.press("Enter");
    await plan.locator(".plan-file.status-rejected").waitFor({ timeout: 30_000 });
    await row.locator(".link").click();
    await page.waitForFunction(
      () => [...document.querySelectorAll(".editor-instance .view-lines")].some((e) => e.textContent?.includes("print('back')")),
      undefined,
      { timeout: 30_000 },
    );
    assert.equal(await page.locator(".editor-instance .view-lines", { hasText: "print('front')" }).count(), 0);
    const title = await page.locator(".tab.active").getAttribute("aria-label");
    assert.match(title ?? "", /app\.py/);
    assert.equal(read(path.join(back, "src/app.py")), BACK["src/app.py"]);
    assert.equal(read(path.join(front, "src/app.py")), FRONT["src/app.py"]);
  }),
);
