/**
 * The chat panel's consent cards (a shell command, an MCP tool call, a `.mcp.json`: answered
 * by a click, or Deny when the panel closes or the turn stops) and the streamed output of
 * `run_command`, a block under its tool row. Pure reducers over a session, used by chatState.
 */

import type { Session } from "./chatState";
import type { ConsentChoice } from "./consent";
import type { ConsentPrompt } from "./protocol";

export interface ConsentEntry {
  kind: "consent";
  id: string;
  /** What is asked (server/protocol.py `ConsentPrompt`). */
  prompt: ConsentPrompt;
  /** The button clicked; "Deny" also when the request was withdrawn. Unset while waiting. */
  answer?: ConsentChoice;
}

export interface OutputEntry {
  kind: "output";
  command: string;
  text: string;
}

/** The panel keeps the end of a long output (the model gets the server's own cut). */
export const OUTPUT_KEPT = 64 * 1024;
export const OUTPUT_CUT = "… (earlier output not shown)\n";

/** Append streamed output to the command's block, or start a block for it. */
export function addOutput(session: Session, command: string, text: string): Session {
  const entries = session.entries.slice();
  const last = entries[entries.length - 1];
  if (last?.kind === "output" && last.command === command) {
    entries[entries.length - 1] = { ...last, text: keepEnd(last.text + text) };
  } else {
    entries.push({ kind: "output", command, text: keepEnd(text) });
  }
  return { ...session, entries };
}

function keepEnd(text: string): string {
  if (text.length <= OUTPUT_KEPT) {
    return text;
  }
  const tail = text.slice(text.length - OUTPUT_KEPT + OUTPUT_CUT.length);
  return OUTPUT_CUT + (tail.startsWith(OUTPUT_CUT) ? tail.slice(OUTPUT_CUT.length) : tail);
}

/** A card for a consent request, waiting for a click. */
export function askConsent(session: Session, id: string, prompt: ConsentPrompt): Session {
  return { ...session, entries: [...session.entries, { kind: "consent", id, prompt }] };
}

/** Record the answer of consent `id` (undefined: withdrawn, which is Deny). */
export function answerConsent(session: Session, id: string, choice?: ConsentChoice): Session {
  let changed = false;
  const entries = session.entries.map((entry) => {
    if (entry.kind !== "consent" || entry.id !== id || entry.answer) {
      return entry;
    }
    changed = true;
    return { ...entry, answer: choice ?? "Deny" };
  });
  return changed ? { ...session, entries } : session;
}

/** A restored panel: a card still waiting belongs to a request that is gone (Deny). A card
 * saved before cards had a `prompt` (`{command, folder}`) is read as a command's. */
export function expireConsents(session: Session): Session {
  const entries = session.entries.map((e) => (e.kind === "consent" && !e.prompt ? savedCommand(e) : e));
  const waiting = entries.flatMap((e) => (e.kind === "consent" && !e.answer ? [e.id] : []));
  return waiting.reduce((s, id) => answerConsent(s, id), { ...session, entries });
}

function savedCommand(entry: ConsentEntry): ConsentEntry {
  const old = entry as unknown as { command?: unknown; folder?: unknown };
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  const prompt: ConsentPrompt = { kind: "command", command: text(old.command), folder: text(old.folder) };
  return { kind: "consent", id: entry.id, prompt, answer: entry.answer ?? "Deny" };
}
