/**
 * Payload types of agent-ls' custom LSP messages (see `server/protocol.py` and SPEC §8),
 * and parsers that turn raw JSON from the wire into them.
 *
 * Pure: imported by the extension host and by the webview bundle alike.
 */

export type ProgressKind = "text" | "tool_call" | "tool_result" | "plan" | "file_applied" | "error";

export interface Position {
  line: number;
  character: number;
}

export interface ChatContext {
  uri: string;
  range?: { start: Position; end: Position };
  selectionText?: string;
}

export interface ChatParams {
  sessionId?: string;
  message: string;
  context?: ChatContext;
}

export interface PlanSummary {
  description: string;
  files: string[];
  applied: string[];
  skipped: string[];
  unplanned: string[];
}

export interface ChatResult {
  sessionId: string;
  text: string;
  plan?: PlanSummary;
  checkpointId?: string;
}

export type ProgressEvent =
  | { kind: "text"; sessionId: string; delta: string }
  | { kind: "tool_call"; sessionId: string; name: string; args: unknown }
  | { kind: "tool_result"; sessionId: string; name: string; ok: boolean; text: string }
  | { kind: "plan"; sessionId: string; description: string; files: string[] }
  | {
      kind: "file_applied";
      sessionId: string;
      path: string;
      action: string;
      message: string;
      planned: boolean;
    }
  | { kind: "error"; sessionId: string; message: string };

export interface UndoResult {
  checkpointId: string;
  files: { path: string; exists: boolean }[];
  overridden: string[];
}

export interface CheckpointInfo {
  id: string;
  time: string;
  description: string;
  sessionId: string;
  files: string[];
  state: "applied" | "undone";
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown, fallback = ""): string {
  return typeof value === "string" ? value : fallback;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** One `agent/chatProgress` notification, or undefined when it is not one we understand. */
export function parseProgress(raw: unknown): ProgressEvent | undefined {
  if (!isObject(raw) || typeof raw.sessionId !== "string") {
    return undefined;
  }
  const sessionId = raw.sessionId;
  const data = isObject(raw.data) ? raw.data : {};
  switch (raw.kind) {
    case "text":
      return { kind: "text", sessionId, delta: str(raw.delta) };
    case "tool_call":
      return { kind: "tool_call", sessionId, name: str(data.name, "?"), args: data.args };
    case "tool_result":
      return {
        kind: "tool_result",
        sessionId,
        name: str(data.name, "?"),
        ok: data.ok !== false,
        text: str(data.text),
      };
    case "plan":
      return { kind: "plan", sessionId, description: str(data.description), files: strings(data.files) };
    case "file_applied":
      return {
        kind: "file_applied",
        sessionId,
        path: str(data.path),
        action: str(data.action),
        message: str(data.message),
        planned: data.planned !== false,
      };
    case "error":
      return { kind: "error", sessionId, message: str(data.message, "unknown error") };
    default:
      return undefined;
  }
}

/** The result of `agent/chat`; throws on a payload without a session id. */
export function parseChatResult(raw: unknown): ChatResult {
  if (!isObject(raw) || typeof raw.sessionId !== "string") {
    throw new Error("agent/chat returned no sessionId");
  }
  const result: ChatResult = { sessionId: raw.sessionId, text: str(raw.text) };
  if (isObject(raw.plan)) {
    result.plan = {
      description: str(raw.plan.description),
      files: strings(raw.plan.files),
      applied: strings(raw.plan.applied),
      skipped: strings(raw.plan.skipped),
      unplanned: strings(raw.plan.unplanned),
    };
  }
  if (typeof raw.checkpointId === "string" && raw.checkpointId) {
    result.checkpointId = raw.checkpointId;
  }
  return result;
}

export function parseUndoResult(raw: unknown): UndoResult {
  if (!isObject(raw) || typeof raw.checkpointId !== "string") {
    throw new Error("undo/redo returned no checkpointId");
  }
  const files = Array.isArray(raw.files)
    ? raw.files.filter(isObject).map((f) => ({ path: str(f.path), exists: f.exists === true }))
    : [];
  return { checkpointId: raw.checkpointId, files, overridden: strings(raw.overridden) };
}

export function parseCheckpoints(raw: unknown): CheckpointInfo[] {
  if (!Array.isArray(raw)) {
    throw new Error("agent.checkpoints returned no list");
  }
  return raw.filter(isObject).map((c) => ({
    id: str(c.id),
    time: str(c.time),
    description: str(c.description),
    sessionId: str(c.sessionId),
    files: strings(c.files),
    state: c.state === "undone" ? "undone" : "applied",
  }));
}
