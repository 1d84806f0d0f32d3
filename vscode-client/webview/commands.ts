/** DOM for `run_command`: the consent card with its three buttons, and the output block. */

import type { ConsentEntry, OutputEntry } from "../src/commandState";
import { CONSENT_CHOICES, type ConsentChoice } from "../src/consent";
import { type Post, button, el } from "./render";

const HINTS: Record<ConsentChoice, string> = {
  Run: "Run this command once",
  "Always allow": "Run it, and run this exact command line without asking for the rest of the session",
  Deny: "Do not run it (the agent is told not to retry it)",
};

const OUTCOMES: Record<ConsentChoice, string> = {
  Run: "Allowed once",
  "Always allow": "Always allowed",
  Deny: "Denied",
};

const CLASSES: Record<ConsentChoice, string> = { Run: "consent-run", "Always allow": "consent-always secondary", Deny: "consent-deny secondary" };

/** The card: what runs and where; the buttons while it waits, the outcome once answered. */
export function renderConsent(entry: ConsentEntry, post: Post): HTMLElement {
  const node = el("div", `entry consent${entry.answer ? ` answered ${CLASSES[entry.answer].split(" ")[0]}` : " waiting"}`);
  node.append(el("div", "consent-title", entry.answer ? "Command" : "Run this command?"));
  node.append(el("pre", "consent-command", entry.command));
  node.append(el("div", "consent-folder", `in ${entry.folder}`));
  if (entry.answer) {
    node.append(el("div", "consent-outcome badge", OUTCOMES[entry.answer]));
    return node;
  }
  const bar = el("div", "consent-actions");
  const id = entry.id;
  for (const choice of CONSENT_CHOICES) {
    const clicked = () => {
      for (const b of bar.querySelectorAll("button")) {
        b.disabled = true; // one answer: the host's reply redraws the card
      }
      post({ type: "consentAnswer", id, choice });
    };
    bar.append(button(choice, CLASSES[choice], HINTS[choice], clicked));
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
