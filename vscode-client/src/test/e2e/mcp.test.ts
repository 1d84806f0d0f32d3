/**
 * MCP in a real VS Code (code-server, the packaged .vsix, headless Chromium) against a real
 * MCP server nobody on the team wrote: `@modelcontextprotocol/server-everything` (npm, from
 * tests/clients/node_modules, `make clients`) over stdio, named by the workspace's
 * `.mcp.json`. Its trust prompt and each tool call's consent are cards in the chat panel, not
 * toasts: Trust starts the server; Run calls `echo` and its answer reaches the model (what the
 * fake LLM received); Deny and Stop do not call it.
 *
 * Needs CODE_SERVER and VSIX like vscode.test.ts (ci.sh sets both); skipped without them.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, test } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { REPO, SKIP as NO_WORKBENCH, Workbench } from "./workbench";

const EVERYTHING =
  process.env.AGENT_LS_MCP_EVERYTHING ?? path.join(REPO, "tests/clients/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const SKIP: string | false = NO_WORKBENCH || (fs.existsSync(EVERYTHING) ? false : `missing server-everything (${EVERYTHING}: run make clients)`);
if (SKIP && process.env.AGENT_LS_E2E_REQUIRED === "1") {
  throw new Error(`end-to-end test required but ${SKIP}`);
}

const doc = (document: unknown) => JSON.stringify(document);
const echo = (message: string) => doc({ action: "tool_call", tool_call: { function_name: "mcp__everything__echo", args: { message } } });
const say = (text: string) => doc({ action: "text_response", text_response: text });

let bench: Workbench;
let page: Page;
let chat: FrameLocator;
let workspace = "";

before(async () => {
  if (SKIP) {
    return;
  }
  bench = await Workbench.start({
    prefix: "agent-ls-mcp-",
    script: { replies: [echo("hello from vscode"), say("Echoed.")] },
    open: (home) => {
      workspace = path.join(home, "project");
      fs.mkdirSync(workspace, { recursive: true });
      const servers = { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } };
      fs.writeFileSync(path.join(workspace, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
      return `folder=${encodeURIComponent(workspace)}`;
    },
  });
  page = bench.page;
});

after(async () => {
  await bench?.stop();
});

type Request = { body: { messages: { role: string; content: string }[] } };

/** What the model was last sent (the tool's result). */
async function lastSent(): Promise<string> {
  const requests = await bench.requests<Request>();
  return requests.at(-1)?.body.messages.at(-1)?.content ?? "";
}

async function ask(message: string): Promise<void> {
  await chat.locator("#message").fill(message);
  await chat.locator("#message").press("Enter");
}

/** The card of this kind waiting for an answer (exactly one). */
async function waitingCard(kind: "mcp_tool" | "mcp_trust") {
  const card = chat.locator(`.entry.consent.consent-${kind}.waiting`);
  await card.waitFor({ timeout: 90_000 });
  assert.equal(await card.count(), 1);
  return card;
}

const noToast = async () => assert.equal(await page.locator(".notifications-toasts .notification-toast").count(), 0, "no toast");

test("the .mcp.json trust prompt and the tool call's consent are cards: Trust, then Run calls echo", { skip: SKIP, timeout: 300_000 }, (t) =>
  bench.pictured("mcp-run", async () => {
    t.diagnostic(bench.logs.trim());
    await page.waitForFunction(() => document.querySelector(".statusbar")?.textContent?.includes("openai · fake-model"), undefined, { timeout: 90_000 });
    await bench.runCommand("Agent: Chat");
    chat = bench.panel();
    await chat.locator("#message").waitFor({ timeout: 60_000 });
    await ask("Echo something");

    const trust = await waitingCard("mcp_trust");
    assert.equal(await trust.locator(".consent-title").textContent(), "Trust the MCP servers of .mcp.json?");
    assert.equal(await trust.locator(".consent-file").textContent(), path.join(workspace, ".mcp.json"));
    assert.deepEqual(await trust.locator(".consent-servers li").allTextContents(), [`everything runs ${process.execPath} ${EVERYTHING} stdio`]);
    assert.deepEqual(await trust.locator("button").allTextContents(), ["Trust", "Deny"]);
    await noToast();
    await trust.locator("button.consent-trust").click();

    const card = await waitingCard("mcp_tool");
    assert.equal(await card.locator(".consent-title").textContent(), "Call this MCP tool?");
    assert.equal(await card.locator(".consent-tool-name").textContent(), "echo");
    assert.equal(await card.locator(".consent-server").textContent(), "everything");
    assert.equal(await card.locator(".consent-arguments").textContent(), JSON.stringify({ message: "hello from vscode" }, null, 2));
    assert.deepEqual(await card.locator("button").allTextContents(), ["Run", "Always allow", "Deny"]);
    await noToast();
    assert.equal((await bench.requests()).length, 1, "the model waits for the call");

    await card.locator("button.consent-run").click();
    await chat.locator(".entry.assistant", { hasText: "Echoed." }).waitFor({ timeout: 60_000 });
    assert.equal(await chat.locator(".entry.consent-mcp_trust .consent-outcome").textContent(), "Trusted");
    assert.equal(await chat.locator(".entry.consent-mcp_tool .consent-outcome").textContent(), "Allowed once");
    // The card sits under the tool's row, like a command's.
    const kinds = await chat.locator("#transcript > .entry").evaluateAll((els) => els.map((e) => e.className.split(" ")[1]));
    assert.deepEqual(kinds.slice(-3), ["tool", "consent", "assistant"]);
    assert.match(await lastSent(), /Echo: hello from vscode/);
  }),
);

test("Deny: echo is not called, the card says Denied, the model is told", { skip: SKIP, timeout: 180_000 }, () =>
  bench.pictured("mcp-deny", async () => {
    await bench.setScript({ replies: [echo("never echoed"), say("Not calling it.")] });
    await ask("Echo again");
    const card = await waitingCard("mcp_tool");
    await card.locator("button.consent-deny").click();
    await chat.locator(".entry.assistant", { hasText: "Not calling it." }).waitFor({ timeout: 60_000 });
    assert.equal(await chat.locator(".entry.consent-mcp_tool .consent-outcome").last().textContent(), "Denied");
    assert.equal(await chat.locator(".entry.consent-mcp_trust").count(), 1, "trusted once");
    const sent = await lastSent();
    assert.match(sent, /denied/i);
    assert.doesNotMatch(sent, /Echo: never echoed/);
  }),
);

test("Stop while the card waits is Deny: echo is not called, the model is asked nothing more", { skip: SKIP, timeout: 180_000 }, () =>
  bench.pictured("mcp-stop", async () => {
    await bench.resetRequests();
    await bench.setScript({ replies: [echo("stopped"), say("unused")] });
    await ask("Echo once more");
    await waitingCard("mcp_tool");
    await chat.locator("#stop").click();
    await chat.locator(".notice.info", { hasText: "Stopped." }).waitFor({ timeout: 60_000 });
    assert.equal(await chat.locator(".entry.consent-mcp_tool .consent-outcome").last().textContent(), "Denied");
    assert.equal(await chat.locator(".entry.consent.waiting").count(), 0);
    assert.equal((await bench.requests()).length, 1, "no tool result sent after the stop");
  }),
);
