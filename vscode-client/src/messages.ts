/**
 * Messages between the extension host and the chat webview (postMessage in both directions).
 * Pure types plus a guard, shared by both bundles.
 */

import type { ChatContext, ChatResult, ProgressEvent } from "./protocol";

export type Level = "info" | "error";

/** Host -> webview. */
export type HostMessage =
  | { type: "turnStarted"; message: string; context?: ChatContext }
  | { type: "progress"; event: ProgressEvent }
  | { type: "turnEnded"; result?: ChatResult; error?: string; cancelled?: boolean }
  | { type: "notice"; level: Level; text: string }
  | { type: "newChat" }
  | { type: "status"; provider: string; model: string; serverRunning: boolean };

/** Webview -> host. */
export type ViewMessage =
  | { type: "ready" }
  | { type: "send"; text: string; sessionId?: string }
  | { type: "stop" }
  | { type: "undo" }
  | { type: "redo" }
  | { type: "openDiff"; checkpointId: string; path: string }
  | { type: "openFile"; path: string };

const VIEW_TYPES = new Set(["ready", "send", "stop", "undo", "redo", "openDiff", "openFile"]);

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
    case "openFile":
      return typeof m.path === "string" ? { type: "openFile", path: m.path } : undefined;
    default:
      return { type: m.type } as ViewMessage;
  }
}
