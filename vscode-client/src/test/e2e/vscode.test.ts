/**
 * End to end in a real VS Code (code-server from npm): the packaged .vsix installed, a
 * workspace opened in headless Chromium, a message typed in the chat panel against the fake
 * LLM, the plan's files checked on disk and in the editor, then Undo clicked in the panel and
 * the files checked again. Takes the README's screenshot of the panel (see AGENT_LS_SCREENSHOT).
 *
 * Needs CODE_SERVER (the code-server executable) and VSIX (the packaged extension); ci.sh
 * sets both. Without them the test is skipped.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, test } from "node:test";
import type { Page } from "playwright-core";
import { SKIP, Workbench } from "./workbench";

// The README's picture: AGENT_LS_SCREENSHOT=$PWD/docs/screenshots/vscode-chat-panel.png refreshes it.
const SCREENSHOT = process.env.AGENT_LS_SCREENSHOT;

const NEW_MODULE = 'def greet(name: str) -> str:\n    return f"Hello, {name}!"\n';
const NEW_APP = "from src.new import greet\n\nprint(greet('world'))\n";
const ORIGINAL = {
  "src/app.py": "print('v1')\n",
  "src/util.py": "def helper():\n    return 1\n",
  "old.txt": "obsolete\n",
};

const doc = (document: unknown) => JSON.stringify(document);
const tool = (name: string, args: Record<string, unknown> = {}) => doc({ action: "tool_call", tool_call: { function_name: name, args } });
const SCRIPT = {
  replies: [
    tool("list_files"),
    tool("read_file", { paths: ["/src/app.py", "src/util.py"] }),
    "I'll add a `greet()` helper and use it:\n```json\n" +
      JSON.stringify(
        {
          action: "start_multi_file",
          plan: { description: "Add a greeting module and use it", files_to_modify: ["/src/new.py", "/src/app.py", "/old.txt"] },
          first_file: { action: "create_file", file: { path: "/src/new.py", content: NEW_MODULE } },
          message: "Creating the module...",
        },
        null,
        2,
      ) +
      "\n```\n",
    doc({ action: "continue_multi_file", next_file: { action: "update_file", file: { path: "/src/app.py", content: NEW_APP } }, message: "Using it in app.py" }),
    doc({ action: "continue_multi_file", next_file: { action: "delete_file", file: { path: "/old.txt" } }, message: "Removing the obsolete file" }),
    doc({ action: "text_response", text_response: "Done: `greet()` lives in `src/new.py`." }),
    // The next turn streams slowly, for the Stop button.
    { content: "Thinking about it… ".repeat(200), chunk_size: 8, delay_ms: 100 },
  ],
};

function tree(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== ".git" && entry.name !== ".vscode") {
          walk(full);
        }
      } else {
        files[path.relative(root, full).split(path.sep).join("/")] = fs.readFileSync(full, "utf8");
      }
    }
  };
  walk(root);
  return files;
}

let bench: Workbench;
let page: Page;
let workspace: string;

before(async () => {
  if (SKIP) {
    return;
  }
  bench = await Workbench.start({
    prefix: "agent-ls-e2e-",
    script: SCRIPT,
    open: (home) => {
      workspace = path.join(home, "project");
      for (const [file, content] of Object.entries(ORIGINAL)) {
        fs.mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
        fs.writeFileSync(path.join(workspace, file), content);
      }
      return `folder=${encodeURIComponent(workspace)}`;
    },
  });
  page = bench.page;
});

after(async () => {
  await bench?.stop();
});

async function openFile(name: string): Promise<void> {
  await page.keyboard.press("Control+P");
  await page.waitForSelector(".quick-input-widget input", { state: "visible" });
  await page.keyboard.type(name);
  await page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label*="${name}"]`);
  await page.keyboard.press("Enter");
  await page.waitForSelector(`.tab[aria-label^="${name}"]`);
}

/** Select the whole active editor and pick a code action from "Refactor...". */
async function refactor(title: string): Promise<void> {
  // The Refactor menu lists what the server answered when it opened; right after another
  // action it can open before the answer (and show nothing): close it and ask again.
  const item = page.locator(".action-widget .monaco-list-row", { hasText: title });
  for (let attempt = 1; ; attempt++) {
    await page.click(".editor-instance .view-lines");
    await page.keyboard.press("Control+A");
    await bench.runCommand("Refactor...");
    try {
      await item.first().waitFor({ timeout: 15_000 });
      break;
    } catch (error) {
      if (attempt === 3) throw error;
      await page.keyboard.press("Escape");
    }
  }
  await item.first().click();
}

/** Wait until a visible editor shows `text` (VS Code renders spaces as no-break spaces). */
async function editorShows(text: string): Promise<void> {
  await page.waitForFunction(
    (wanted) => [...document.querySelectorAll(".editor-instance .view-lines")].some((e) => e.textContent?.replace(/\u00a0/g, " ").includes(wanted)),
    text,
    { timeout: 60_000 },
  );
}

async function dirtyTabs(): Promise<number> {
  return page.locator(".tabs-container .tab.dirty").count();
}

test("chat in the panel applies a plan to disk and editor, Undo restores it", { skip: SKIP, timeout: 300_000 }, (t) => bench.pictured("chat", async () => {
  t.diagnostic(bench.logs.trim());
  await openFile("app.py");
  await page.click(".editor-instance .view-lines");
  await page.keyboard.press("Control+A"); // the selection goes along as context
  await bench.runCommand("Agent: Chat"); // the palette command reveals the panel in the activity bar
  const chat = bench.panel();
  await chat.locator("#message").waitFor({ timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector(".statusbar")?.textContent?.includes("openai"), undefined, { timeout: 60_000 });

  await chat.locator("#message").fill("Add a greeting module and use it in app.py");
  await chat.locator("#message").press("Enter");
  await chat.locator(".entry.plan.done").waitFor({ timeout: 120_000 });

  // Disk: the whole plan applied.
  assert.deepEqual(tree(workspace), { "src/app.py": NEW_APP, "src/new.py": NEW_MODULE, "src/util.py": ORIGINAL["src/util.py"] });
  // Panel: every file applied, the tool calls listed, the final answer shown.
  const rows = await chat.locator(".plan-file").evaluateAll((els) => els.map((e) => [e.querySelector(".link")?.textContent, e.className]));
  assert.deepEqual(rows, [
    ["src/new.py", "plan-file status-applied"],
    ["src/app.py", "plan-file status-applied"],
    ["old.txt", "plan-file status-applied"],
  ]);
  assert.deepEqual(await chat.locator("details.entry.tool summary").allTextContents(), ["list_files — done", "read_file — done"]);
  assert.match((await chat.locator("#transcript").textContent()) ?? "", /greet\(\) lives in src\/new\.py/);
  assert.match((await chat.locator(".entry.user .context").textContent()) ?? "", /^app\.py:1-/);
  // What reached the model: the message with the editor's file and selection.
  const requests = await bench.requests<{ body: { messages: { role: string; content: string }[] } }>();
  const first = requests[0].body.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
  assert.match(first, /^Add a greeting module and use it in app\.py/);
  assert.match(first, /\nContext: file:\/\/\/\S+\/project\/src\/app\.py \(lines 1-\d\)\n/);
  assert.match(first, /Selected text:\n```\nprint\('v1'\)/);
  // No settings problem was reported by the server (contributed defaults are all valid).
  assert.equal(await page.locator(".notifications-toasts", { hasText: "agent-ls setting" }).count(), 0);
  // Editor: the open app.py shows the new text and is not left dirty.
  await editorShows("from src.new import greet");
  await page.waitForFunction(() => document.querySelectorAll(".tabs-container .tab.dirty").length === 0, undefined, { timeout: 30_000 });
  assert.equal(await dirtyTabs(), 0);
  await page.mouse.move(700, 500); // no tooltip in the picture
  await page.screenshot({ path: SCREENSHOT ?? path.join(bench.homeDir, "chat-panel.png") });

  // A click on a plan file opens the diff against the checkpoint.
  await chat.locator(".plan-file .link", { hasText: "src/app.py" }).click();
  await page.waitForSelector(".monaco-diff-editor", { timeout: 30_000 });
  await page.waitForFunction(() => document.querySelector(".monaco-diff-editor .editor.original .view-lines")?.textContent?.includes("print('v1')"), undefined, { timeout: 30_000 });

  // Undo from the panel: back to the original files, editor included, nothing dirty.
  await chat.locator("#undo").click();
  await chat.locator(".notice.info", { hasText: "Undo of" }).waitFor({ timeout: 60_000 });
  assert.deepEqual(tree(workspace), ORIGINAL);
  await page.waitForFunction(() => document.querySelectorAll(".tabs-container .tab.dirty").length === 0, undefined, { timeout: 30_000 });
  assert.equal(await dirtyTabs(), 0);

  // Stop: a slow turn is cancelled ($/cancelRequest) and the panel is ready again.
  await chat.locator("#message").fill("Think aloud");
  await chat.locator("#message").press("Enter");
  await chat.locator(".entry.assistant", { hasText: "Thinking about it" }).last().waitFor({ timeout: 30_000 });
  await chat.locator("#stop").click();
  await chat.locator(".notice.info", { hasText: "Stopped." }).waitFor({ timeout: 30_000 });
  assert.equal(await chat.locator("#send").isEnabled(), true);
  assert.deepEqual(tree(workspace), ORIGINAL);
}));

const DOCUMENTED_UTIL = 'def helper():\n    """Return one."""\n    return 1\n';

test("code actions: Explain runs in the panel, Add docstrings edits the open file and saves it", { skip: SKIP, timeout: 180_000 }, () => bench.pictured("code-actions", async () => {
  const chat = bench.panel();
  await openFile("util.py");
  await bench.setScript({ replies: ["It returns the constant `1`."] });
  await refactor("Explain");
  const explained = chat.locator(".entry.assistant", { hasText: "It returns the constant 1." });
  await explained.waitFor({ timeout: 60_000 });
  const asked = chat.locator(".entry.user").last();
  assert.match((await asked.locator(".text").textContent()) ?? "", /^Explain what the selected code of \/src\/util\.py/);
  assert.match((await asked.locator(".context").textContent()) ?? "", /^util\.py:1-/);

  await bench.setScript({
    replies: [
      doc({
        action: "start_multi_file",
        plan: { description: "document helper", files_to_modify: ["/src/util.py"] },
        first_file: { action: "update_file", file: { path: "/src/util.py", content: DOCUMENTED_UTIL } },
      }),
      doc({ action: "text_response", text_response: "Added a docstring." }),
    ],
  });
  await refactor("Add docstrings");
  await editorShows('"""Return one."""');
  await page.waitForFunction(() => document.querySelectorAll(".tabs-container .tab.dirty").length === 0, undefined, { timeout: 30_000 });
  assert.equal(fs.readFileSync(path.join(workspace, "src", "util.py"), "utf8"), DOCUMENTED_UTIL);
  assert.equal(await dirtyTabs(), 0);
}));

test("Rewrite with AI… asks how, and the answer reaches the model", { skip: SKIP, timeout: 120_000 }, () =>
  bench.pictured("rewrite", async () => {
    await openFile("util.py");
    const rewritten = "ONE = 1\n\n\ndef helper():\n    return ONE\n";
    await bench.resetRequests(); // empties the request log
    await bench.setScript({
      replies: [
        doc({
          action: "start_multi_file",
          plan: { description: "use a constant", files_to_modify: ["/src/util.py"] },
          first_file: { action: "update_file", file: { path: "/src/util.py", content: rewritten } },
        }),
        doc({ action: "text_response", text_response: "Introduced ONE." }),
      ],
    });
    await refactor("Rewrite with AI");
    const box = page.locator(".quick-input-widget input");
    await page.waitForSelector(".quick-input-widget .quick-input-message, .quick-input-widget .quick-input-title", { state: "visible" });
    await box.fill("use a module constant named ONE");
    await box.press("Enter");
    await editorShows("return ONE");
    await page.waitForFunction(() => document.querySelectorAll(".tabs-container .tab.dirty").length === 0, undefined, { timeout: 30_000 });
    assert.equal(fs.readFileSync(path.join(workspace, "src", "util.py"), "utf8"), rewritten);
    const requests = await bench.requests<{ body: { messages: { role: string; content: string }[] } }>();
    const asked = requests[0].body.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
    assert.match(asked, /^use a module constant named ONE\n/);
  }),
);

test("a settings change reaches the server without a restart", { skip: SKIP, timeout: 90_000 }, () =>
  bench.pictured("settings", async () => {
    const chat = bench.panel();
    assert.match(await page.evaluate(() => document.querySelector(".statusbar")?.textContent ?? ""), /openai · fake-model/);
    fs.mkdirSync(path.join(workspace, ".vscode"), { recursive: true });
    fs.writeFileSync(path.join(workspace, ".vscode", "settings.json"), JSON.stringify({ "agentLs.model": "other-model" }));
    await page.waitForFunction(() => document.querySelector(".statusbar")?.textContent?.includes("openai · other-model"), undefined, { timeout: 30_000 });
    // The next turn uses the new model: the server re-read its settings, no restart.
    await bench.resetRequests();
    await bench.setScript({ replies: ["Model switched."] });
    await chat.locator("#message").fill("Which model?");
    await chat.locator("#message").press("Enter");
    await chat.locator(".entry.assistant", { hasText: "Model switched." }).waitFor({ timeout: 30_000 });
    const requests = await bench.requests<{ body: { model: string } }>();
    assert.deepEqual(
      requests.map((r) => r.body.model),
      ["other-model"],
    );
  }),
);

test("review mode: the panel shows the staged plan and its diff; Reject one with a reason, Accept the rest; Undo", { skip: SKIP, timeout: 300_000 }, () =>
  bench.pictured("review", async () => {
    const chat = bench.panel();
    const before = tree(workspace);
    // The server reads agentLs.* as a whole: once the status bar shows the new model, review is on too.
    fs.mkdirSync(path.join(workspace, ".vscode"), { recursive: true });
    fs.writeFileSync(path.join(workspace, ".vscode", "settings.json"), JSON.stringify({ "agentLs.model": "review-model", "agentLs.review": "on" }));
    await page.waitForFunction(() => document.querySelector(".statusbar")?.textContent?.includes("openai · review-model"), undefined, { timeout: 30_000 });
    await bench.resetRequests();
    await bench.setScript({ replies: SCRIPT.replies.slice(2, 6) });

    await chat.locator("#message").fill("Add a greeting module, for review");
    await chat.locator("#message").press("Enter");
    const plan = chat.locator(".entry.plan.review").last();
    const row = (file: string) => plan.locator(".plan-file", { hasText: file });
    await plan.locator(".plan-file.status-pending").nth(2).waitFor({ timeout: 120_000 });
    await chat.locator("#send:enabled").waitFor({ timeout: 60_000 });
    assert.deepEqual(await plan.locator(".plan-file .badge").allTextContents(), ["pending · create", "pending · update", "pending · delete"]);
    assert.deepEqual(tree(workspace), before, "nothing written while the plan is pending");

    // The proposal against the file as it is now, in VS Code's diff editor.
    await row("src/app.py").locator(".link").click();
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll(".monaco-diff-editor")].some(
          (diff) =>
            diff.querySelector(".editor.modified .view-lines")?.textContent?.replace(/\u00a0/g, " ").includes("from src.new import greet") &&
            diff.querySelector(".editor.original .view-lines")?.textContent?.includes("print('v1')"),
        ),
      undefined,
      { timeout: 30_000 },
    );

    // Reject app.py: VS Code asks why; the reason is kept on the row.
    await row("src/app.py").locator("button.reject").click();
    const box = page.locator(".quick-input-widget input");
    await page.waitForSelector(".quick-input-widget .quick-input-title:has-text('Reject src/app.py')", { state: "visible", timeout: 30_000 });
    await box.fill("keep the print statement");
    await box.press("Enter");
    await plan.locator(".plan-file.status-rejected", { hasText: "src/app.py" }).waitFor({ timeout: 30_000 });
    assert.equal(await row("src/app.py").locator(".reason").textContent(), "keep the print statement");
    assert.deepEqual(tree(workspace), before, "a rejection writes nothing");

    // Accept the rest as one checkpoint.
    await plan.locator("button.accept-all").click();
    await chat.locator(".entry.plan.review.done").last().waitFor({ timeout: 60_000 });
    const states = () => plan.locator(".plan-file").evaluateAll((els) => els.map((e) => [e.querySelector(".link")?.textContent, e.className]));
    assert.deepEqual(await states(), [
      ["src/new.py", "plan-file status-applied"],
      ["src/app.py", "plan-file status-rejected"],
      ["old.txt", "plan-file status-applied"],
    ]);
    const { "old.txt": _deleted, ...kept } = before;
    assert.deepEqual(tree(workspace), { ...kept, "src/new.py": NEW_MODULE });
    assert.equal(await plan.locator("button.accept, button.reject").count(), 0);

    // Undo: the accepted files go back, their badges say so.
    await chat.locator("#undo").click();
    await plan.locator(".plan-file.status-undone").nth(1).waitFor({ timeout: 60_000 });
    assert.deepEqual(await states(), [
      ["src/new.py", "plan-file status-undone"],
      ["src/app.py", "plan-file status-rejected"],
      ["old.txt", "plan-file status-undone"],
    ]);
    assert.deepEqual(tree(workspace), before);

    // The next message of the conversation tells the model why app.py was rejected.
    await bench.resetRequests();
    await bench.setScript({ replies: ["Understood, app.py stays as it is."] });
    await chat.locator("#message").fill("ok?");
    await chat.locator("#message").press("Enter");
    await chat.locator(".entry.assistant", { hasText: "Understood, app.py stays" }).waitFor({ timeout: 60_000 });
    const requests = await bench.requests<{ body: { messages: { role: string; content: string }[] } }>();
    const sent = requests[0].body.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
    assert.match(sent, /src\/app\.py/);
    assert.match(sent, /keep the print statement/);
  }),
);

test("a wrong agentLs.serverPath is shown in the panel itself", { skip: SKIP, timeout: 120_000 }, () =>
  bench.pictured("server-path", async () => {
    const chat = bench.panel();
    const workspaceSettings = path.join(workspace, ".vscode", "settings.json");
    const kept = fs.readFileSync(workspaceSettings, "utf8");
    fs.writeFileSync(workspaceSettings, JSON.stringify({ ...JSON.parse(kept), "agentLs.serverPath": "/nonexistent/agent-ls" }));
    await chat.locator("#server-error:visible").waitFor({ timeout: 60_000 });
    assert.match((await chat.locator("#server-error").textContent()) ?? "", /not running: agent-ls server not found: \/nonexistent\/agent-ls/);
    fs.writeFileSync(workspaceSettings, kept);
    await chat.locator("#server-error").waitFor({ state: "hidden", timeout: 60_000 });
  }),
);
