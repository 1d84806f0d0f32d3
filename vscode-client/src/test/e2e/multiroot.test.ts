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
import type { FrameLocator, Page } from "playwright-core";
import { SKIP, Workbench } from "./workbench";

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

let bench: Workbench;
let page: Page;
let front = "";
let back = "";
let workspaceFile = "";

before(async () => {
  if (SKIP) {
    return;
  }
  bench = await Workbench.start({
    prefix: "agent-ls-multiroot-",
    script: { replies: PLAN },
    open: (home) => {
      front = path.join(home, "front");
      back = path.join(home, "back");
      seed(front, FRONT);
      seed(back, BACK);
      workspaceFile = path.join(home, "two.code-workspace");
      fs.writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: "front" }, { path: "back" }], settings: {} }));
      return `workspace=${encodeURIComponent(workspaceFile)}`;
    },
  });
  page = bench.page;
});

after(async () => {
  await bench?.stop();
});

async function closeEditors(): Promise<void> {
  await bench.runCommand("View: Close All Editors");
  await page.waitForFunction(() => document.querySelectorAll(".tabs-container .tab").length === 0, undefined, { timeout: 30_000 });
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
  bench.pictured("multiroot", async () => {
    t.diagnostic(bench.logs.trim());
    // The extension is up once its status bar item shows the server's provider.
    await page.waitForFunction(() => document.querySelector(".statusbar")?.textContent?.includes("openai · fake-model"), undefined, { timeout: 90_000 });
    await bench.runCommand("Agent: Chat");
    const chat = bench.panel();
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
    await bench.runCommand("Agent: Checkpoints");
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
    await bench.setScript({ replies: PLAN });
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
