/**
 * Workspace Trust in a real VS Code (code-server with Workspace Trust on, as VS Code ships; the
 * packaged .vsix; headless Chromium). A cloned repository's `.vscode/settings.json` says
 * `agentLs.commands: "allow"` and points `agentLs.serverPath` at its own script (which writes
 * a marker file, then runs the real server). Opened untrusted (Restricted Mode): the user's
 * server starts, the script never runs, the model's command asks first. Trusted from the
 * "Workspaces: Manage Workspace Trust" editor: the folder's values apply at once, without a
 * reload (the script starts the server, the same command runs without a card).
 * And in a multi-root workspace a folder's own `agentLs.mcpServers` (a `resource` setting)
 * starts nothing until the workspace is trusted; then the running server (no restart: the
 * server path is the user's) pulls it and starts that folder's MCP server
 * (`@modelcontextprotocol/server-everything`).
 *
 * Needs CODE_SERVER and VSIX like vscode.test.ts (ci.sh sets both), and server-everything
 * (tests/clients/node_modules, `make clients`) like mcp.test.ts; skipped without them.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, test } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { until } from "./processes";
import { REPO, SERVER, SKIP, Workbench } from "./workbench";

const EVERYTHING =
  process.env.AGENT_LS_MCP_EVERYTHING ?? path.join(REPO, "tests/clients/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const NO_MCP: string | false = SKIP || (fs.existsSync(EVERYTHING) ? false : `missing server-everything (${EVERYTHING}: run make clients)`);
if (NO_MCP && process.env.AGENT_LS_E2E_REQUIRED === "1") {
  throw new Error(`end-to-end test required but ${NO_MCP}`);
}

const doc = (document: unknown) => JSON.stringify(document);
const run = (command: string) => doc({ action: "tool_call", tool_call: { function_name: "run_command", args: { command } } });
const say = (text: string) => doc({ action: "text_response", text_response: text });
const echo = (message: string) => doc({ action: "tool_call", tool_call: { function_name: "mcp__everything__echo", args: { message } } });

const LINE = "echo ran >> ran.txt";

let bench: Workbench;
let page: Page;
let chat: FrameLocator;
let workspace = "";
let marker = "";

before(async () => {
  if (SKIP) {
    return;
  }
  bench = await Workbench.start({
    prefix: "agent-ls-trust-",
    script: { replies: [run(LINE), say("Not run.")] },
    workspaceTrust: true,
    open: (home) => {
      workspace = path.join(home, "cloned");
      marker = path.join(home, "repo-server-ran");
      const script = path.join(workspace, "tools", "agent-ls");
      fs.mkdirSync(path.dirname(script), { recursive: true });
      fs.writeFileSync(script, `#!/bin/sh\necho "$@" > '${marker}'\nexec '${SERVER}' "$@"\n`, { mode: 0o755 });
      fs.mkdirSync(path.join(workspace, ".vscode"));
      const settings = { "agentLs.serverPath": script, "agentLs.commands": "allow" };
      fs.writeFileSync(path.join(workspace, ".vscode", "settings.json"), JSON.stringify(settings));
      fs.writeFileSync(path.join(workspace, "app.py"), "print('hi')\n");
      return `folder=${encodeURIComponent(workspace)}`;
    },
  });
  page = bench.page;
});

after(async () => {
  await bench?.stop();
});

const statusBar = async () => (await page.locator(".statusbar").textContent()) ?? "";
const serverUp = () =>
  page.waitForFunction(() => document.querySelector(".statusbar")?.textContent?.includes("openai · fake-model"), undefined, { timeout: 90_000 });

async function ask(message: string): Promise<void> {
  await bench.page.locator(".quick-input-widget").waitFor({ state: "hidden" }); // see send below
  await chat.locator("#message").fill(message);
  await chat.locator("#message").press("Enter");
}

test("untrusted: the repository's serverPath and commands are ignored; trusted: they apply without a reload", { skip: SKIP, timeout: 300_000 }, (t) =>
  bench.pictured("trust", async () => {
    t.diagnostic(bench.logs.trim());
    // A folder nobody trusted yet opens in Restricted Mode (code-server asks no startup question).
    await page.locator(".statusbar", { hasText: "Restricted Mode" }).waitFor({ timeout: 90_000 });

    // The user's own server runs; the repository's script never did.
    await serverUp();
    assert.equal(fs.existsSync(marker), false, "the repository's serverPath was not run");

    // agentLs.commands "allow" of the folder is ignored: the command asks first.
    await bench.runCommand("Agent: Chat");
    chat = bench.panel();
    await chat.locator("#message").waitFor({ timeout: 60_000 });
    await ask("Run it");
    const card = chat.locator(".entry.consent.waiting");
    await card.waitFor({ timeout: 60_000 });
    assert.equal(await card.locator(".consent-command").textContent(), LINE);
    await card.locator("button.consent-deny").click();
    await chat.locator(".entry.assistant", { hasText: "Not run." }).waitFor({ timeout: 60_000 });
    assert.equal(fs.existsSync(path.join(workspace, "ran.txt")), false);

    // The user trusts the folder as VS Code offers it: Manage Workspace Trust, Trust.
    await bench.runCommand("Workspaces: Manage Workspace Trust");
    const trust = page.locator(".workspace-trust-editor .monaco-button", { hasText: /^Trust$/ });
    await trust.waitFor({ timeout: 30_000 });
    await trust.click();
    await page.waitForFunction(() => !document.querySelector(".statusbar")?.textContent?.includes("Restricted Mode"), undefined, { timeout: 30_000 });

    // The folder's serverPath applies: its script starts the server (no window reload).
    await until("the repository's serverPath to run", 60_000, async () => (fs.existsSync(marker) ? true : undefined));
    await serverUp();
    assert.doesNotMatch(await statusBar(), /Restricted Mode/);

    // And its commands "allow": the same line runs without a card.
    await bench.setScript({ replies: [run(LINE), say("Ran it.")] });
    await bench.runCommand("Agent: Chat");
    await chat.locator("#message").waitFor({ timeout: 60_000 });
    const cards = await chat.locator(".entry.consent").count();
    await ask("Run it now");
    await chat.locator(".entry.assistant", { hasText: "Ran it." }).waitFor({ timeout: 60_000 });
    assert.equal(await chat.locator(".entry.consent").count(), cards, "no card");
    assert.equal(fs.readFileSync(path.join(workspace, "ran.txt"), "utf8"), "ran\n");
  }),
);

test("multi-root: a folder's own agentLs.mcpServers waits for trust, then starts its server without a reload", { skip: NO_MCP, timeout: 300_000 }, async (t) => {
  await bench?.stop(); // one workbench at a time
  let folder = "";
  const multi = await Workbench.start({
    prefix: "agent-ls-trust-folders-",
    script: { replies: [echo("untrusted"), say("No such tool.")] },
    workspaceTrust: true,
    open: (home) => {
      folder = path.join(home, "front");
      fs.mkdirSync(path.join(folder, ".vscode"), { recursive: true });
      fs.mkdirSync(path.join(home, "back"));
      const servers = { everything: { command: process.execPath, args: [EVERYTHING, "stdio"], allow: ["echo"] } };
      fs.writeFileSync(path.join(folder, ".vscode", "settings.json"), JSON.stringify({ "agentLs.mcpServers": servers }));
      const file = path.join(home, "two.code-workspace");
      fs.writeFileSync(file, JSON.stringify({ folders: [{ path: "front" }, { path: "back" }], settings: {} }));
      return `workspace=${encodeURIComponent(file)}`;
    },
  });
  type Request = { body: { messages: { content: string }[] } };
  const lastSent = async () => (await multi.requests<Request>()).at(-1)?.body.messages.at(-1)?.content ?? "";
  try {
    await multi.pictured("trust-folders", async () => {
      t.diagnostic(multi.logs.trim());
      const p = multi.page;
      await p.locator(".statusbar", { hasText: "Restricted Mode" }).waitFor({ timeout: 90_000 });
      await p.waitForFunction(() => document.querySelector(".statusbar")?.textContent?.includes("openai · fake-model"), undefined, { timeout: 90_000 });
      await multi.runCommand("Agent: Chat");
      const panel = multi.panel();
      await panel.locator("#message").waitFor({ timeout: 60_000 });
      const send = async (message: string, reply: string) => {
        // The command palette gives the focus back to the editor it was opened from when it
        // closes (here the Workspace Trust editor): typing before then can land there.
        await p.locator(".quick-input-widget").waitFor({ state: "hidden" });
        await panel.locator("#message").fill(message);
        await panel.locator("#message").press("Enter");
        await panel.locator(".entry.assistant", { hasText: reply }).waitFor({ timeout: 90_000 });
      };

      // Restricted Mode: the folder's server is not started, its tool not offered.
      await send("Echo before trust", "No such tool.");
      assert.doesNotMatch(await lastSent(), /Echo: untrusted/);

      // Trusted: the running server pulls the folder's value and starts its server.
      await multi.runCommand("Workspaces: Manage Workspace Trust");
      const trust = p.locator(".workspace-trust-editor .monaco-button", { hasText: /^Trust$/ });
      await trust.waitFor({ timeout: 30_000 });
      await trust.click();
      await p.waitForFunction(() => !document.querySelector(".statusbar")?.textContent?.includes("Restricted Mode"), undefined, { timeout: 30_000 });
      await multi.setScript({ replies: [echo("from the folder"), say("Echoed.")] });
      await multi.runCommand("Agent: Chat");
      await send("Echo after trust", "Echoed.");
      assert.match(await lastSent(), /Echo: from the folder/, `the folder's server answered (${folder})`);
    });
  } finally {
    await multi.stop();
  }
});
