/**
 * Messages between the extension host and the chat webview (postMessage in both directions).
 * Pure types plus a guard, shared by both bundles.
 */

import { type ConsentChoice, isConsentChoice } from "./consent";
import type { ProgressEvent } from "./payloads";
import type { ChatContext, ChatResult, ConsentPrompt, ReviewPlan, UndoResult } from "./protocol";

export type Level = "info" | "error";

/** Host -> webview. */
export type HostMessage =
  | { type: "turnStarted"; message: string; context?: ChatContext }
  | { type: "progress"; event: ProgressEvent }
  | { type: "turnEnded"; result?: ChatResult; error?: string; cancelled?: boolean }
  | { type: "notice"; level: Level; text: string }
  | { type: "newChat" }
  | { type: "status"; provider: string; model: string; serverRunning: boolean; error?: string }
  /** A review decision (from the panel or a code action): the plan as the server now has it. */
  | { type: "reviewed"; plan: ReviewPlan }
  /** An undo or redo went through: the checkpoint's files change state. */
  | { type: "moved"; undo: boolean; result: UndoResult }
  /** The server asks consent: a card (Run / Always allow / Deny, or Trust / Deny). */
  | { type: "consent"; id: string; prompt: ConsentPrompt }
  /** The consent was answered (the button), or withdrawn (no choice: Deny). */
  | { type: "consentClosed"; id: string; choice?: ConsentChoice };

/** Webview -> host. */
export type ViewMessage =
  | { type: "ready" }
  | { type: "send"; text: string; sessionId?: string }
  | { type: "stop" }
  | { type: "undo" }
  | { type: "redo" }
  | { type: "openDiff"; checkpointId: string; path: string }
  | { type: "openFile"; path: string }
  | { type: "openStagedDiff"; planId: string; path: string }
  | { type: "accept"; planId: string; files?: string[] }
  | { type: "reject"; planId: string; files?: string[] }
  | { type: "consentAnswer"; id: string; choice: ConsentChoice };

const VIEW_TYPES = new Set([
  "ready",
  "send",
  "stop",
  "undo",
  "redo",
  "openDiff",
  "openFile",
  "openStagedDiff",
  "accept",
  "reject",
  "consentAnswer",
]);

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

/** `{type, planId, files?}`, or undefined when the plan id or the file list is malformed. */
function review(type: "accept" | "reject", m: Record<string, unknown>): ViewMessage | undefined {
  if (typeof m.planId !== "string" || !m.planId) {
    return undefined;
  }
  if (m.files === undefined) {
    return { type, planId: m.planId };
  }
  return isStrings(m.files) && m.files.length > 0 ? { type, planId: m.planId, files: m.files } : undefined;
}

/** Narrow an untrusted message from the webview; undefined when malformed. */
export function parseViewMessage(raw: unknown): ViewMessage | undefined {
  if (typeof raw !== "object" || raw === null) {
    return undefined;
  }
  const m = raw as Record<string, unknown>;
  if (typeof m.type !== "string" || !VIEW_TYPES.has(m.type)) {
    return undefined;
  }
  switch (m.type) {
    case "send":
      if (typeof m.text !== "string" || !m.text.trim()) {
        return undefined;
      }
      return typeof m.sessionId === "string"
        ? { type: "send", text: m.text, sessionId: m.sessionId }
        : { type: "send", text: m.text };
    case "openDiff":
      return typeof m.checkpointId === "string" && typeof m.path === "string"
        ? { type: "openDiff", checkpointId: m.checkpointId, path: m.path }
        : undefined;
    case "openStagedDiff":
      return typeof m.planId === "string" && typeof m.path === "string"
        ? { type: "openStagedDiff", planId: m.planId, path: m.path }
        : undefined;
    case "accept":
    case "reject":
      return review(m.type, m);
    case "openFile":
      return typeof m.path === "string" ? { type: "openFile", path: m.path } : undefined;
    case "consentAnswer":
      return typeof m.id === "string" && isConsentChoice(m.choice) ? { type: "consentAnswer", id: m.id, choice: m.choice } : undefined;
    default:
      return { type: m.type } as ViewMessage;
  }
}
