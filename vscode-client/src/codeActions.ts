/**
 * How the extension takes part in the server's AI code actions (server/features/code_actions.py):
 * - "Rewrite with AI…" asks the user "Rewrite how?" before it is resolved, and puts the answer
 *   in the action's `data.instruction`;
 * - the `agent.chat {message, context}` command that "Explain" carries opens the chat panel
 *   and runs the turn there, instead of on the server with the answer in a pop-up.
 * Pure parsing here; the middleware that uses it is in client.ts.
 */

import type { ChatParams, Range } from "./protocol";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The arguments of an `agent.chat` command as chat params; undefined when malformed. */
export function chatCommandParams(args: readonly unknown[]): ChatParams | undefined {
  const first = args[0];
  if (!isObject(first) || typeof first.message !== "string" || !first.message.trim()) {
    return undefined;
  }
  const params: ChatParams = { message: first.message };
  if (typeof first.sessionId === "string") {
    params.sessionId = first.sessionId;
  }
  const context = first.context;
  if (isObject(context) && typeof context.uri === "string") {
    params.context = { uri: context.uri };
    if (isObject(context.range)) {
      params.context.range = context.range as unknown as Range; // the server checks it
    }
    if (typeof context.selectionText === "string") {
      params.context.selectionText = context.selectionText;
    }
  }
  return params;
}

/** Whether a code action's `data` is a "Rewrite with AI…" still waiting for the user's wording. */
export function wantsInstruction(data: unknown): data is Json {
  return isObject(data) && data.action === "rewrite" && !data.instruction && data.result === undefined;
}
