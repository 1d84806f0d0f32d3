/**
 * The model's shell commands in a real VS Code (code-server, the packaged .vsix, headless
 * Chromium): the server's consent request shows as a card in the chat panel (not a toast)
 * naming the command line and the folder; the user clicks Run, Deny or Always allow, or stops
 * the turn, or closes the panel (both Deny). The command's output streams under its tool row.
 * Checked on disk (the files the commands make) and in what the fake LLM received.
 *
 * Needs CODE_SERVER and VSIX like vscode.test.ts (ci.sh sets both); skipped without them.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, test } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { SKIP, Workbench } from "./workbench";

const doc = (document: unknown) => JSON.stringify(document);
const run = (command: string) => doc({ action: "tool_call", tool_call: { function_name: "run_command", args: { command } } });
const say = (text: string) => doc({ action: "text_response", text_response: text });

const RAN = "echo from-vscode > ran.txt; echo streamed-line; exit 4";

let bench: Workbench;
let page: Page;
let chat: FrameLocator;
let workspace = "";

before(async () => {
  if (SKIP) {
    return;
  }
  bench = await Workbench.start({
    prefix: "agent-ls-commands-",
    script: { replies: [run(RAN), say("Ran it.")] },
    open: (home) => {
      workspace = path.join(home, "project");
      fs.mkdirSync(workspace, { recursive: true });
      fs.writeFileSync(path.join(workspace, "app.py"), "print('hi')\n");
      return `folder=${encodeURIComponent(workspace)}`;
    },
  });
  page = bench.page;
});

after(async () => {
  await bench?.stop();
});

type Requests = { body: { messages: { role: string; content: string }[] } }[];

/** What the model was last sent (the tool result of the command). */
async function lastSent(): Promise<string> {
  const requests = await bench.requests<Requests[number]>();
  return requests.at(-1)?.body.messages.at(-1)?.content ?? "";
}

async function ask(message: string): Promise<void> {
  await chat.locator("#message").fill(message);
  await chat.locator("#message").press("Enter");
}

/** The card waiting for an answer (exactly one). */
async function waitingCard() {
  const card = chat.locator(".entry.consent.waiting");
  await card.waitFor({ timeout: 60_000 });
  assert.equal(await card.count(), 1);
  return card;
}

const exists = (name: string) => fs.existsSync(path.join(workspace, name));

test("the consent is a card in the panel: Run runs the command and its output streams under the tool row", { skip: SKIP, timeout: 300_000 }, (t) =>
  bench.pictured("consent-run", async () => {
    t.diagnostic(bench.logs.trim());
    await page.waitForFunction(() => document.querySelector(".statusbar")?.textContent?.includes("openai · fake-model"), undefined, { timeout: 90_000 });
    await bench.runCommand("Agent: Chat");
    chat = bench.panel();
    await chat.locator("#message").waitFor({ timeout: 60_000 });
    await ask("Run the check");

    const card = await waitingCard();
    assert.equal(await card.locator(".consent-command").textContent(), RAN);
    assert.match((await card.locator(".consent-folder").textContent()) ?? "", new RegExp(workspace.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    assert.deepEqual(await card.locator("button").allTextContents(), ["Run", "Always allow", "Deny"]);
    assert.equal(await page.locator(".notifications-toasts .notification-toast").count(), 0, "no toast");
    assert.equal(exists("ran.txt"), false, "nothing runs before the click");

    await card.locator("button.consent-run").click();
    await chat.locator(".entry.assistant", { hasText: "Ran it." }).waitFor({ timeout: 60_000 });
    assert.equal(await chat.locator(".entry.consent.answered .consent-outcome").textContent(), "Allowed once");
    assert.equal(fs.readFileSync(path.join(workspace, "ran.txt"), "utf8"), "from-vscode\n");
    const output = chat.locator("details.entry.command-output");
    assert.equal(await output.locator("summary").textContent(), `$ ${RAN}`);
    assert.match((await output.locator("pre").textContent()) ?? "", /streamed-line/);
    assert.ok(await output.locator("pre").isVisible(), "the output block is open");
    // Under its tool row: the run_command row, the card, then the output.
    const kinds = await chat.locator("#transcript > .entry").evaluateAll((els) => els.map((e) => e.className.split(" ")[1]));
    assert.deepEqual(kinds.slice(1, 4), ["tool", "consent", "command-output"]);
    const sent = await lastSent();
    assert.match(sent, /streamed-line/);
    assert.match(sent, /exit code 4/);
  }),
);

test("Deny: nothing runs, the card says Denied, the model is told", { skip: SKIP, timeout: 180_000 }, () =>
  bench.pictured("consent-deny", async () => {
    await bench.setScript({ replies: [run("touch denied.txt"), say("Not running it.")] });
    await ask("Make a file");
    const card = await waitingCard();
    await card.locator("button.consent-deny").click();
    await chat.locator(".entry.assistant", { hasText: "Not running it." }).waitFor({ timeout: 60_000 });
    assert.equal(await chat.locator(".entry.consent.answered .consent-outcome").last().textContent(), "Denied");
    assert.equal(exists("denied.txt"), false);
    assert.match(await lastSent(), /denied/);
  }),
);

test("Always allow: the same line later in the turn runs without a card", { skip: SKIP, timeout: 180_000 }, () =>
  bench.pictured("consent-always", async () => {
    const line = "echo again >> log.txt";
    await bench.setScript({ replies: [run(line), run(line), say("Twice.")] });
    const before = await chat.locator(".entry.consent").count();
    await ask("Log twice");
    const card = await waitingCard();
    await card.locator("button.consent-always").click();
    await chat.locator(".entry.assistant", { hasText: "Twice." }).waitFor({ timeout: 60_000 });
    assert.equal(await chat.locator(".entry.consent").count(), before + 1, "asked once");
    assert.equal(await chat.locator(".entry.consent .consent-outcome").last().textContent(), "Always allowed");
    assert.equal(fs.readFileSync(path.join(workspace, "log.txt"), "utf8"), "again\nagain\n");
  }),
);

test("Stop while the card waits is Deny; closing the panel is Deny", { skip: SKIP, timeout: 240_000 }, () =>
  bench.pictured("consent-withdrawn", async () => {
    await bench.resetRequests();
    await bench.setScript({ replies: [run("touch stopped.txt"), say("unused")] });
    await ask("Make another file");
    await waitingCard();
    await chat.locator("#stop").click();
    await chat.locator(".notice.info", { hasText: "Stopped." }).waitFor({ timeout: 60_000 });
    assert.equal(await chat.locator(".entry.consent .consent-outcome").last().textContent(), "Denied");
    assert.equal(await chat.locator(".entry.consent.waiting").count(), 0);
    assert.equal(exists("stopped.txt"), false);

    await bench.setScript({ replies: [run("touch closed.txt"), say("Understood, not run.")] });
    await ask("And one more");
    await waitingCard();
    assert.match((await page.locator(".statusbar").textContent()) ?? "", /agent working/);
    await bench.runCommand("View: Close Primary Side Bar");
    // The turn goes on without the panel: it ends (the status bar stops saying "working").
    await page.waitForFunction(() => document.querySelector(".statusbar")?.textContent?.includes("openai · fake-model"), undefined, { timeout: 60_000 });
    assert.match(await lastSent(), /denied/);
    assert.equal(exists("closed.txt"), false);
    await bench.runCommand("Agent: Chat");
    await chat.locator(".entry.assistant", { hasText: "Understood, not run." }).waitFor({ timeout: 60_000 });
    assert.equal(await chat.locator(".entry.consent.waiting").count(), 0, "no card left waiting");
    assert.equal(await chat.locator(".entry.consent .consent-outcome").last().textContent(), "Denied");
    // The stopped turn asked the model once (no "denied" sent after the stop); the closed one twice.
    assert.equal((await bench.requests()).length, 3);
  }),
);
