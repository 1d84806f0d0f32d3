/**
 * Payload types of agent-ls' custom LSP messages (see `server/protocol.py` and SPEC §8),
 * and parsers that turn raw JSON from the wire into them.
 *
 * Pure: imported by the extension host and by the webview bundle alike.
 */

export type ProgressKind = "text" | "tool_call" | "tool_result" | "plan" | "file_applied" | "error" | "review";

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
  workDoneToken?: number | string;
}

export interface PlanSummary {
  description: string;
  files: string[];
  applied: string[];
  skipped: string[];
  unplanned: string[];
}

/** JSON exactly as the model wrote it (tool arguments, action documents). */
export type JsonObject = Record<string, unknown>;

/** One block of a model reply; `reply`: which reply of the turn it came from. */
export interface TextRecord {
  type: "text";
  start: number;
  end: number;
  text: string;
  repaired: boolean;
  truncated: boolean;
  suspect: boolean;
  reply?: number;
}

export interface ActionRecord {
  type: "action";
  start: number;
  end: number;
  document: JsonObject;
  repaired: boolean;
  truncated: boolean;
  suspect: boolean;
  reply?: number;
}

export interface ToolCallRecord {
  type: "tool_call";
  start: number;
  end: number;
  name: string;
  args: JsonObject;
  repaired: boolean;
  truncated: boolean;
  suspect: boolean;
  reply?: number;
}

export type BlockRecord = TextRecord | ActionRecord | ToolCallRecord;

export interface ChatResult {
  sessionId: string;
  text: string;
  blocks: BlockRecord[];
  plan?: PlanSummary | ReviewPlan;
  checkpointId?: string;
}

/** One staged file of a plan in review mode (`agentLs.review: "on"`). */
export interface ReviewFile {
  path: string;
  op: "create" | "update" | "delete";
  state: "pending" | "accepted" | "rejected";
  reason?: string;
}

/** A staged plan: in `agent/chat`'s result (review mode) and from agent.accept / agent.reject. */
export interface ReviewPlan {
  planId: string;
  state: "pending" | "accepted" | "rejected" | "partial";
  description: string;
  files: ReviewFile[];
  checkpointId?: string;
  refused?: string[];
}

/** `agent.accept [{planId, files?}]`. */
export interface AcceptParams {
  planId: string;
  files?: string[];
}

/** `agent.reject [{planId, files?, reason?}]`. */
export interface RejectParams {
  planId: string;
  files?: string[];
  reason?: string;
}

/** `agent.stagedContent [{planId, path}]`: the content a pending plan proposes for one file. */
export interface StagedContentParams {
  planId: string;
  path: string;
}

/** Result of `agent.stagedContent`; `content` is absent when the plan deletes the file. */
export interface StagedContent {
  path: string;
  op: "create" | "update" | "delete";
  state: "pending" | "accepted" | "rejected";
  content?: string;
}

/**
 * One `agent/chatProgress` notification, flattened: on the wire it is
 * `{sessionId, kind, delta}` for text and `{sessionId, kind, data: {...}}` for the others.
 * A plan event carries `applied`/`skipped`/`unplanned` only when sent at the end of a turn.
 */
export type ProgressEvent =
  | { kind: "text"; sessionId: string; delta: string }
  | { kind: "tool_call"; sessionId: string; name: string; args: JsonObject }
  | { kind: "tool_result"; sessionId: string; name: string; ok: boolean; text: string }
  | {
      kind: "plan";
      sessionId: string;
      description: string;
      files: string[];
      applied?: string[];
      skipped?: string[];
      unplanned?: string[];
    }
  | {
      kind: "file_applied";
      sessionId: string;
      path: string;
      action: "create_file" | "update_file" | "delete_file";
      message: string;
      planned: boolean;
    }
  | { kind: "error"; sessionId: string; message: string; retry?: number; path?: string; rolledBack?: string[] }
  | {
      kind: "review";
      sessionId: string;
      planId: string;
      state: "pending" | "accepted" | "rejected" | "partial";
      description: string;
      files: ReviewFile[];
    };

export interface UndoneFile {
  path: string;
  exists: boolean;
}

export interface UndoResult {
  checkpointId: string;
  files: UndoneFile[];
  overridden: string[];
}

export interface CheckpointInfo {
  id: string;
  time: string;
  description: string;
  sessionId: string;
  files: string[];
  state: "applied" | "undone";
  /** The folders the plan touched, in a multi-root workspace (its files are qualified by them). */
  folders?: string[];
}

/** One step of the provider resolution (`agent/status`). */
export interface Candidate {
  source: string;
  detail: string;
  chosen: boolean;
}

/** Result of `agent/status`: which provider answers, why, and whether it does (`reachable`
 * null: not checked). */
export interface StatusReport {
  provider: string | null;
  model: string | null;
  reason: string;
  reachable: boolean | null;
  detail: string;
  baseUrl?: string;
  candidates: Candidate[];
  /** The retrieval index. */
  index?: IndexReport;
  /** The workspace folders (absent when none is open). */
  folders?: FolderStatus[];
}

/** One workspace folder in `agent/status` (name: "" when it is the only folder). */
export interface FolderStatus {
  name: string;
  path: string;
  applied: number;
  undone: number;
  index?: IndexReport;
}

/** Params of `agent/sessions`: `delete` removes that stored conversation first. */
export interface SessionsParams {
  delete?: string;
}

/** One stored conversation of the workspace (`agent/sessions`). */
export interface SessionEntry {
  id: string;
  title: string;
  updated: string;
  turns: number;
  /** Why the stored file cannot be read back, "<file> (<why>)"; the file is kept as it is. */
  corrupt?: string;
}

/** A document the index could not take, and why. */
export interface IndexFailure {
  path: string;
  reason: string;
}

/** How the nearest chunks are found now: a saved `hnsw` graph, `exact`, `not loaded`, `pgvector`. */
export interface VectorSearchReport {
  kind: string;
  vectors?: number;
  building?: boolean;
  error?: string;
}

/** Dense search in `agent/status`: on (model, chunks by embedding status) or off (why, how). */
export interface EmbeddingReport {
  enabled: boolean;
  model?: string;
  none?: number;
  pending?: number;
  ready?: number;
  failed?: number;
  failures?: IndexFailure[];
  reason?: string;
  hint?: string;
  error?: string;
  retrying?: number;
  search?: VectorSearchReport;
}

/** Who writes the index's table / long-code summaries: the provider, or the fallback (why). */
export interface SummaryReport {
  source: string;
  model?: string;
  reason?: string;
  asked?: number;
  failed?: number;
  paused?: boolean;
  error?: string;
}

/** The retrieval index in `agent/status`. */
export interface IndexReport {
  state: string;
  backend?: string;
  location?: string;
  dense?: boolean;
  embeddings?: EmbeddingReport;
  documents?: Record<string, number>;
  chunks?: number;
  failures?: IndexFailure[];
  watching?: boolean;
  error?: string;
  hint?: string;
  summaries?: SummaryReport;
}

/** One `agent/search` result: the original element and where it is. */
export interface SearchHit {
  path: string;
  startLine: number;
  endLine: number;
  type: string;
  headings: string[];
  content: string;
  summary: string;
  score: number;
  /** Pages of a PDF's hit (its lines are those of the PDF's markdown conversion). */
  startPage?: number;
  endPage?: number;
}

/** `agent.reindex`: the index after the update, and what the update did. */
export interface ReindexResult {
  documents: Record<string, number>;
  chunks: number;
  indexed: number;
  unchanged: number;
  removed: number;
  failed: IndexFailure[];
}

/** `agent/indexUpdated`: what an index update changed (failed: path -> reason). */
export interface IndexUpdated {
  indexed: string[];
  removed: string[];
  failed: Record<string, string>;
  embedded?: number;
  embeddingFailed?: number;
  summarized?: string[];
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
    ...optional("folders", c.folders, isStrings),
  }));
}
