/**
 * The plan entries of the chat panel and their files' true state: pending (staged for review
 * or not written yet), applied, skipped, rejected (with the reason) and undone. Pure functions
 * over the panel's state, used by chatState's reducer.
 */

import type { ReviewPlan, UndoResult } from "./protocol";

export type FileStatus = "pending" | "applied" | "skipped" | "rejected" | "undone";

export interface PlanFile {
  path: string;
  status: FileStatus;
  /** What a normal plan did to the file (create_file, update_file, delete_file). */
  action?: string;
  /** What a staged plan proposes (create, update, delete). */
  op?: string;
  /** Why the user rejected it. */
  reason?: string;
  /** The checkpoint that applied the file (accepting a staged plan file by file makes several). */
  checkpointId?: string;
}

export interface PlanEntry {
  kind: "plan";
  description: string;
  files: PlanFile[];
  checkpointId?: string;
  done: boolean;
  /** Set for a plan staged in review mode: Accept / Reject are offered while files are pending. */
  planId?: string;
  /** Files the last Accept refused (changed since staging), with the server's reason. */
  refused?: string[];
}

/** A staged plan as the panel shows it (from the "review" progress event or the turn's result). */
export function reviewEntry(plan: Omit<ReviewPlan, "checkpointId" | "refused">): PlanEntry {
  return mergeReview({ kind: "plan", description: plan.description, files: [], done: false, planId: plan.planId }, plan);
}

/**
 * The entry after the server's answer for its plan. A file accepted by this answer takes the
 * answer's checkpoint; a file the user has undone since stays undone (the server's plan still
 * calls it accepted).
 */
export function mergeReview(entry: PlanEntry, plan: Omit<ReviewPlan, "checkpointId"> & { checkpointId?: string }): PlanEntry {
  const files = plan.files.map((file): PlanFile => {
    const before = entry.files.find((f) => f.path === file.path);
    const base: PlanFile = { path: file.path, op: file.op, status: "pending" };
    if (file.state === "rejected") {
      return { ...base, status: "rejected", ...(file.reason ? { reason: file.reason } : {}) };
    }
    if (file.state === "accepted") {
      const checkpointId = before?.checkpointId ?? plan.checkpointId;
      const status: FileStatus = before?.status === "undone" ? "undone" : "applied";
      return { ...base, status, ...(checkpointId ? { checkpointId } : {}) };
    }
    return base;
  });
  const refused = plan.refused?.length ? { refused: plan.refused } : {};
  const { refused: _old, ...rest } = entry;
  return {
    ...rest,
    ...refused,
    planId: plan.planId,
    description: plan.description || entry.description,
    files,
    checkpointId: plan.checkpointId ?? entry.checkpointId,
    done: plan.state !== "pending",
  };
}

/** After an undo (or redo) of `result.checkpointId`: the files it covered are undone (applied). */
export function applyMove(entry: PlanEntry, undo: boolean, result: UndoResult): PlanEntry {
  let changed = false;
  const files = entry.files.map((file) => {
    const checkpoint = file.checkpointId ?? entry.checkpointId;
    if (checkpoint !== result.checkpointId || (file.status !== "applied" && file.status !== "undone")) {
      return file;
    }
    changed = true;
    return { ...file, status: undo ? ("undone" as const) : ("applied" as const) };
  });
  return changed ? { ...entry, files } : entry;
}

/** Whether a plan still waits for a decision on some file. */
export function hasPending(entry: PlanEntry): boolean {
  return entry.planId !== undefined && entry.files.some((f) => f.status === "pending");
}
