/**
 * The chat panel's model: sessions and their transcripts, updated by a pure reducer from the
 * host's messages. The webview renders it and persists it with `setState`; tests drive it
 * with tables of messages.
 */

import type { ProgressEvent } from "./payloads";
import type { ChatContext, ChatResult, ReviewPlan } from "./protocol";
import type { HostMessage, Level } from "./messages";
import { type FileStatus, type PlanEntry, type PlanFile, applyMove, mergeReview, reviewEntry } from "./planState";
import { type ConsentEntry, type OutputEntry, addOutput, answerConsent, askConsent, expireConsents } from "./commandState";

export type { FileStatus, PlanEntry, PlanFile } from "./planState";

export type Entry =
  | { kind: "user"; text: string; context?: string }
  | { kind: "assistant"; text: string }
  | { kind: "tool"; name: string; args: string; result?: string; ok?: boolean }
  | PlanEntry
  | ConsentEntry
  | OutputEntry
  | { kind: "notice"; level: Level; text: string };

export interface Session {
  /** Server-assigned id; undefined until the first turn of a new chat answers. */
  id?: string;
  title: string;
  entries: Entry[];
}

export interface ChatState {
  sessions: Session[];
  active: number;
  busy: boolean;
  status: string;
  /** Why the server is not running (a wrong agentLs.serverPath...): shown atop the panel. */
  serverError?: string;
}

export function initialState(): ChatState {
  return { sessions: [{ title: "New chat", entries: [] }], active: 0, busy: false, status: "" };
}

/** Update every plan entry of every session (a review or an undo may concern any of them). */
function mapPlans(state: ChatState, update: (plan: PlanEntry) => PlanEntry): ChatState {
  const sessions = state.sessions.map((session) => {
    let changed = false;
    const entries = session.entries.map((entry) => {
      if (entry.kind !== "plan") {
        return entry;
      }
      const next = update(entry);
      changed ||= next !== entry;
      return next;
    });
    return changed ? { ...session, entries } : session;
  });
  return { ...state, sessions };
}

/** The staged plan arrived (progress or result): it replaces this turn's plan entry, or is added. */
function staged(session: Session, plan: Omit<ReviewPlan, "checkpointId" | "refused">): Session {
  const entries = session.entries;
  const known = entries.findIndex((e) => e.kind === "plan" && e.planId === plan.planId);
  const index = known >= 0 ? known : lastPlanIndex(entries);
  const target = index >= 0 ? (entries[index] as PlanEntry) : undefined;
  const thisTurn = target && (target.planId === plan.planId || (!target.done && target.planId === undefined));
  if (!target || !thisTurn) {
    return push(session, reviewEntry(plan));
  }
  const next = entries.slice();
  next[index] = mergeReview(target, plan);
  return { ...session, entries: next };
}

function withActive(state: ChatState, update: (session: Session) => Session): ChatState {
  const sessions = state.sessions.map((s, i) => (i === state.active ? update(s) : s));
  return { ...state, sessions };
}

function push(session: Session, entry: Entry): Session {
  return { ...session, entries: [...session.entries, entry] };
}

function replaceLast(session: Session, entry: Entry): Session {
  return { ...session, entries: [...session.entries.slice(0, -1), entry] };
}

function describeContext(context?: ChatContext): string | undefined {
  if (!context) {
    return undefined;
  }
  const name = decodeURIComponent(context.uri.split("/").pop() ?? context.uri);
  if (!context.range) {
    return name;
  }
  return `${name}:${context.range.start.line + 1}-${context.range.end.line + 1}`;
}

function lastPlanIndex(entries: Entry[]): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i].kind === "plan") {
      return i;
    }
  }
  return -1;
}

function updatePlan(session: Session, update: (plan: PlanEntry) => Entry): Session {
  const index = lastPlanIndex(session.entries);
  if (index < 0) {
    return session;
  }
  const plan = session.entries[index] as PlanEntry;
  const entries = session.entries.slice();
  entries[index] = update(plan);
  return { ...session, entries };
}

function fileApplied(session: Session, path: string, action: string): Session {
  const index = lastPlanIndex(session.entries);
  const plan = index >= 0 ? (session.entries[index] as PlanEntry) : undefined;
  if (!plan || plan.done || plan.planId !== undefined) {
    return push(session, { kind: "notice", level: "info", text: `${action}: ${path}` });
  }
  return updatePlan(session, (p) => {
    const known = p.files.some((f) => f.path === path);
    const files = known
      ? p.files.map((f) => (f.path === path ? { ...f, status: "applied" as const, action } : f))
      : [...p.files, { path, status: "applied" as const, action }];
    return { ...p, files };
  });
}

/** Review mode: a file of the plan was staged, not written: it stays pending, with its action. */
function fileStaged(session: Session, path: string, action: string): Session {
  const index = lastPlanIndex(session.entries);
  const plan = index >= 0 ? (session.entries[index] as PlanEntry) : undefined;
  if (!plan || plan.done || plan.planId !== undefined) {
    return push(session, { kind: "notice", level: "info", text: `staged for review: ${action}: ${path}` });
  }
  return updatePlan(session, (p) => {
    const known = p.files.some((f) => f.path === path);
    const files = known
      ? p.files.map((f) => (f.path === path ? { ...f, status: "pending" as const, action } : f))
      : [...p.files, { path, status: "pending" as const, action }];
    return { ...p, files };
  });
}

/** Apply one progress event to the session whose turn is running (the active one). */
export function applyProgress(session: Session, event: ProgressEvent): Session {
  const current = session.id ? session : { ...session, id: event.sessionId };
  const last = current.entries[current.entries.length - 1];
  switch (event.kind) {
    case "text":
      return last?.kind === "assistant"
        ? replaceLast(current, { kind: "assistant", text: last.text + event.delta })
        : push(current, { kind: "assistant", text: event.delta });
    case "tool_call":
      return push(current, { kind: "tool", name: event.name, args: JSON.stringify(event.args ?? {}) });
    case "tool_result": {
      for (let i = current.entries.length - 1; i >= 0; i--) {
        const entry = current.entries[i];
        if (entry.kind === "tool" && entry.name === event.name && entry.result === undefined) {
          const entries = current.entries.slice();
          entries[i] = { ...entry, result: event.text, ok: event.ok };
          return { ...current, entries };
        }
      }
      return push(current, { kind: "tool", name: event.name, args: "", result: event.text, ok: event.ok });
    }
    case "plan":
      return push(current, {
        kind: "plan",
        description: event.description,
        files: event.files.map((path) => ({ path, status: "pending" as const })),
        done: false,
      });
    case "file_applied":
      return fileApplied(current, event.path, event.action);
    case "file_staged":
      return fileStaged(current, event.path, event.action);
    case "error":
      return push(current, { kind: "notice", level: "error", text: event.message });
    case "review":
      return staged(current, event);
    case "command_output":
      return addOutput(current, event.command, event.text);
  }
}

/** Whether an assistant message arrived since the user's last message. */
function streamedThisTurn(entries: Entry[]): boolean {
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i].kind === "assistant") {
      return true;
    }
    if (entries[i].kind === "user") {
      return false;
    }
  }
  return false;
}

/** The final result: text not streamed yet, the plan's final statuses and checkpoint. */
export function applyResult(session: Session, result: ChatResult): Session {
  let current: Session = { ...session, id: result.sessionId };
  if (!streamedThisTurn(current.entries) && result.text) {
    current = push(current, { kind: "assistant", text: result.text });
  }
  const plan = result.plan;
  if (!plan) {
    return current;
  }
  if ("planId" in plan) {
    return staged(current, plan); // review mode: staged, nothing written yet
  }
  if (lastPlanIndex(current.entries) < 0) {
    current = push(current, { kind: "plan", description: plan.description, files: [], done: false });
  }
  return updatePlan(current, (p) => {
    const applied = new Set([...plan.applied, ...plan.unplanned]);
    const skipped = new Set(plan.skipped);
    const paths = [...new Set([...p.files.map((f) => f.path), ...plan.files, ...plan.applied, ...plan.unplanned])];
    const files = paths.map((path): PlanFile => {
      const before = p.files.find((f) => f.path === path);
      const status: FileStatus = applied.has(path) ? "applied" : skipped.has(path) ? "skipped" : "pending";
      return { ...before, path, status };
    });
    return { ...p, description: plan.description || p.description, files, checkpointId: result.checkpointId, done: true };
  });
}

function titleOf(message: string): string {
  const line = message.trim().split("\n")[0];
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}

export function reduce(state: ChatState, message: HostMessage): ChatState {
  switch (message.type) {
    case "turnStarted":
      return {
        ...withActive(state, (s) => ({
          ...push(s, { kind: "user", text: message.message, context: describeContext(message.context) }),
          title: s.entries.length === 0 ? titleOf(message.message) : s.title,
        })),
        busy: true,
      };
    case "progress":
      return withActive(state, (s) => applyProgress(s, message.event));
    case "turnEnded": {
      const ended = { ...state, busy: false };
      if (message.result) {
        return withActive(ended, (s) => applyResult(s, message.result as ChatResult));
      }
      const text = message.cancelled ? "Stopped." : `Error: ${message.error ?? "the turn failed"}`;
      const level: Level = message.cancelled ? "info" : "error";
      return withActive(ended, (s) => push(s, { kind: "notice", level, text }));
    }
    case "notice":
      return withActive(state, (s) => push(s, { kind: "notice", level: message.level, text: message.text }));
    case "newChat":
      return newChat(state);
    case "status": {
      const status = message.serverRunning ? `${message.provider} · ${message.model}` : "server stopped";
      const { serverError: _previous, ...rest } = state;
      return message.error && !message.serverRunning ? { ...rest, status, serverError: message.error } : { ...rest, status };
    }
    case "reviewed":
      return mapPlans(state, (entry) => (entry.planId === message.plan.planId ? mergeReview(entry, message.plan) : entry));
    case "moved":
      return mapPlans(state, (entry) => applyMove(entry, message.undo, message.result));
    case "consent":
      return withActive(state, (s) => askConsent(s, message.id, message.prompt));
    case "consentClosed":
      return { ...state, sessions: state.sessions.map((s) => answerConsent(s, message.id, message.choice)) };
  }
}

/** Start an empty session (or reuse the active one when it is still empty). */
export function newChat(state: ChatState): ChatState {
  if (state.sessions[state.active]?.entries.length === 0) {
    return state;
  }
  return { ...state, sessions: [...state.sessions, { title: "New chat", entries: [] }], active: state.sessions.length };
}

export function switchTo(state: ChatState, index: number): ChatState {
  return index >= 0 && index < state.sessions.length && !state.busy ? { ...state, active: index } : state;
}

/** Parse persisted state defensively: a corrupt or old shape starts fresh. */
export function restoreState(raw: unknown): ChatState {
  if (typeof raw !== "object" || raw === null) {
    return initialState();
  }
  const s = raw as Partial<ChatState>;
  if (!Array.isArray(s.sessions) || s.sessions.length === 0 || typeof s.active !== "number") {
    return initialState();
  }
  const active = Math.min(Math.max(0, s.active), s.sessions.length - 1);
  const sessions = s.sessions.map(expireConsents);
  return { sessions, active, busy: false, status: typeof s.status === "string" ? s.status : "" };
}
