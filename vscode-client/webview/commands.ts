/**
 * DOM for the consent cards (a shell command, an MCP tool call, a project's `.mcp.json`) with
 * their buttons, and for `run_command`'s output block.
 */

import type { ConsentEntry, OutputEntry } from "../src/commandState";
import { type ConsentChoice, choicesFor, prettyArguments } from "../src/consent";
import type { ConsentPrompt } from "../src/protocol";
import { type Post, button, el } from "./render";

type Kind = ConsentPrompt["kind"];

const TITLES: Record<Kind, { waiting: string; answered: string }> = {
  command: { waiting: "Run this command?", answered: "Command" },
  mcp_tool: { waiting: "Call this MCP tool?", answered: "MCP tool" },
  mcp_trust: { waiting: "Trust the MCP servers of .mcp.json?", answered: "MCP servers of .mcp.json" },
};

const HINTS: Record<Kind, Partial<Record<ConsentChoice, string>>> = {
  command: {
    Run: "Run this command once",
    "Always allow": "Run it, and run this exact command line without asking for the rest of the session",
    Deny: "Do not run it (the agent is told not to retry it)",
  },
  mcp_tool: {
    Run: "Call this tool once",
    "Always allow": "Call it, and call this tool of this server without asking for the rest of the session",
    Deny: "Do not call it (the agent is told not to retry it)",
  },
  mcp_trust: {
    Trust: "Start these servers (asked again when the file changes)",
    Deny: "Do not start them",
  },
};

const OUTCOMES: Record<ConsentChoice, string> = {
  Run: "Allowed once",
  "Always allow": "Always allowed",
  Deny: "Denied",
  Trust: "Trusted",
};

const CLASSES: Record<ConsentChoice, string> = {
  Run: "consent-run",
  "Always allow": "consent-always secondary",
  Deny: "consent-deny secondary",
  Trust: "consent-trust",
};

/** What is asked: the command and its folder, the tool and its arguments, the file's servers. */
function details(prompt: ConsentPrompt): HTMLElement[] {
  switch (prompt.kind) {
    case "command":
      return [el("pre", "consent-command", prompt.command), el("div", "consent-folder", `in ${prompt.folder}`)];
    case "mcp_tool": {
      const what = el("div", "consent-tool");
      what.append(el("code", "consent-tool-name", prompt.tool), " of the MCP server ", el("code", "consent-server", prompt.server));
      return [what, el("pre", "consent-arguments", prettyArguments(prompt.arguments))];
    }
    case "mcp_trust": {
      const servers = el("ul", "consent-servers");
      for (const server of prompt.servers) {
        const row = el("li");
        row.append(el("code", "consent-server", server.name), " runs ", el("code", "consent-runs", server.runs));
        servers.append(row);
      }
      return [el("div", "consent-file", prompt.path), servers];
    }
  }
}

/** The card: what is asked; the buttons while it waits, the outcome once answered. */
export function renderConsent(entry: ConsentEntry, post: Post): HTMLElement {
  const prompt = entry.prompt;
  const state = entry.answer ? ` answered ${CLASSES[entry.answer].split(" ")[0]}` : " waiting";
  const node = el("div", `entry consent consent-${prompt.kind}${state}`);
  node.append(el("div", "consent-title", TITLES[prompt.kind][entry.answer ? "answered" : "waiting"]), ...details(prompt));
  if (entry.answer) {
    node.append(el("div", "consent-outcome badge", OUTCOMES[entry.answer]));
    return node;
  }
  const bar = el("div", "consent-actions");
  const id = entry.id;
  for (const choice of choicesFor(prompt)) {
    const clicked = () => {
      for (const b of bar.querySelectorAll("button")) {
        b.disabled = true; // one answer: the host's reply redraws the card
      }
      post({ type: "consentAnswer", id, choice });
    };
    bar.append(button(choice, CLASSES[choice], HINTS[prompt.kind][choice] ?? choice, clicked));
  }
  node.append(bar);
  return node;
}

/** The command's output as it streams: a monospace block under its tool row, open by default. */
export function renderOutput(entry: OutputEntry): HTMLElement {
  const node = el("details", "entry command-output");
  node.open = true;
  node.append(el("summary", undefined, `$ ${entry.command}`));
  node.append(el("pre", "output-text", entry.text));
  return node;
}
