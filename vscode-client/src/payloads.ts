/**
 * Parsers that turn raw JSON from the wire into the payload types of `protocol.ts` (generated
 * from `server/protocol.py`), and the flattened progress event the panel works with.
 *
 * Pure: imported by the extension host and by the webview bundle alike.
 */

import type {
  BlockRecord,
  ChatResult,
  CheckpointEntry,
  ProgressKind,
  ProgressPayloads,
  ReviewFile,
  ReviewPlan,
  StagedContent,
  UndoResult,
} from "./protocol";

/**
 * One `agent/chatProgress` notification, flattened: on the wire it is
 * `{sessionId, kind, delta}` for text and `{sessionId, kind, data: {...}}` for the others
 * (`ChatProgress`); here the payload's fields sit beside `kind` and `sessionId`.
 * A plan event carries `applied`/`skipped`/`unplanned` only when sent at the end of a turn.
 */
export type ProgressEvent = {
  [K in ProgressKind]: { kind: K; sessionId: string } & ProgressPayloads[K];
}[ProgressKind];

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

/** `{key: value}` when the value has the wanted type, else nothing (for optional fields). */
function optional<K extends string, V>(key: K, value: unknown, keep: (v: unknown) => v is V): Partial<Record<K, V>> {
  return keep(value) ? ({ [key]: value } as Record<K, V>) : {};
}

const isString = (v: unknown): v is string => typeof v === "string";
const isNumber = (v: unknown): v is number => typeof v === "number";
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

function fileAction(value: unknown): "create_file" | "update_file" | "delete_file" {
  return value === "create_file" || value === "delete_file" ? value : "update_file";
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
      return { kind: "tool_call", sessionId, name: str(data.name, "?"), args: isObject(data.args) ? data.args : {} };
    case "tool_result":
      return {
        kind: "tool_result",
        sessionId,
        name: str(data.name, "?"),
        ok: data.ok !== false,
        text: str(data.text),
      };
    case "plan":
      return {
        kind: "plan",
        sessionId,
        description: str(data.description),
        files: strings(data.files),
        ...optional("applied", data.applied, isStrings),
        ...optional("skipped", data.skipped, isStrings),
        ...optional("unplanned", data.unplanned, isStrings),
      };
    case "file_applied":
      return {
        kind: "file_applied",
        sessionId,
        path: str(data.path),
        action: fileAction(data.action),
        message: str(data.message),
        planned: data.planned !== false,
      };
    case "file_staged":
      return {
        kind: "file_staged",
        sessionId,
        path: str(data.path),
        action: fileAction(data.action),
        message: str(data.message),
        planned: data.planned !== false,
      };
    case "error":
      return {
        kind: "error",
        sessionId,
        message: str(data.message, "unknown error"),
        ...optional("retry", data.retry, isNumber),
        ...optional("path", data.path, isString),
        ...optional("rolledBack", data.rolledBack, isStrings),
      };
    case "review":
      return { kind: "review", sessionId, ...parseReviewFields(data) };
    default:
      return undefined;
  }
}

const REVIEW_OPS: ReadonlySet<unknown> = new Set(["create", "update", "delete"]);
const FILE_STATES: ReadonlySet<unknown> = new Set(["pending", "accepted", "rejected"]);
const PLAN_STATES: ReadonlySet<unknown> = new Set(["pending", "accepted", "rejected", "partial"]);

function reviewFile(raw: Json): ReviewFile {
  return {
    path: str(raw.path),
    op: REVIEW_OPS.has(raw.op) ? (raw.op as ReviewFile["op"]) : "update",
    state: FILE_STATES.has(raw.state) ? (raw.state as ReviewFile["state"]) : "pending",
    ...optional("reason", raw.reason, isString),
  };
}

function parseReviewFields(raw: Json): Omit<ReviewPlan, "checkpointId" | "refused"> {
  return {
    planId: str(raw.planId),
    state: PLAN_STATES.has(raw.state) ? (raw.state as ReviewPlan["state"]) : "pending",
    description: str(raw.description),
    files: Array.isArray(raw.files) ? raw.files.filter(isObject).map(reviewFile) : [],
  };
}

/** A staged plan (review mode) from `agent/chat`, `agent.accept` or `agent.reject`. */
export function parseReviewPlan(raw: unknown): ReviewPlan {
  if (!isObject(raw) || typeof raw.planId !== "string" || !raw.planId) {
    throw new Error("the review answer has no planId");
  }
  return {
    ...parseReviewFields(raw),
    ...optional("checkpointId", raw.checkpointId, (v): v is string => isString(v) && v !== ""),
    ...optional("refused", raw.refused, isStrings),
  };
}

/** The result of `agent.stagedContent`. */
export function parseStagedContent(raw: unknown): StagedContent {
  if (!isObject(raw) || typeof raw.path !== "string") {
    throw new Error("agent.stagedContent returned no path");
  }
  const file = reviewFile(raw);
  return { path: file.path, op: file.op, state: file.state, ...optional("content", raw.content, isString) };
}

/** The result of `agent/chat`; throws on a payload without a session id. */
export function parseChatResult(raw: unknown): ChatResult {
  if (!isObject(raw) || typeof raw.sessionId !== "string") {
    throw new Error("agent/chat returned no sessionId");
  }
  const result: ChatResult = { sessionId: raw.sessionId, text: str(raw.text), blocks: parseBlocks(raw.blocks) };
  if (isObject(raw.plan) && typeof raw.plan.planId === "string") {
    result.plan = parseReviewPlan(raw.plan);
  } else if (isObject(raw.plan)) {
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

const BLOCK_TYPES: ReadonlySet<unknown> = new Set(["text", "action", "tool_call"]);

/** The blocks of a chat result (kept as sent; the extension only counts and shows them). */
function parseBlocks(raw: unknown): BlockRecord[] {
  return Array.isArray(raw) ? (raw.filter((b) => isObject(b) && BLOCK_TYPES.has(b.type)) as unknown as BlockRecord[]) : [];
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

export function parseCheckpoints(raw: unknown): CheckpointEntry[] {
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
    ...optional("folders", c.folders, isStrings),
  }));
}
