/**
 * The chat panel's entries for `run_command`: the consent card (answered by a click, or Deny
 * when the panel closes or the turn stops) and the command's streamed output, a block under
 * its tool row. Pure reducers over a session, used by chatState.
 */

import type { Session } from "./chatState";
import type { ConsentChoice } from "./consent";

export interface ConsentEntry {
  kind: "consent";
  id: string;
  command: string;
  folder: string;
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
export function askConsent(session: Session, id: string, command: string, folder: string): Session {
  return { ...session, entries: [...session.entries, { kind: "consent", id, command, folder }] };
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

/** A restored panel: a card still waiting belongs to a request that is gone (Deny). */
export function expireConsents(session: Session): Session {
  const waiting = session.entries.flatMap((e) => (e.kind === "consent" && !e.answer ? [e.id] : []));
  return waiting.reduce((s, id) => answerConsent(s, id), session);
}
