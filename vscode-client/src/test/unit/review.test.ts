/**
 * The panel's plan badges in review mode and after undo/redo: what the user sees after the
 * server's messages, fed in as raw wire JSON through the same parsers the extension uses.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { type ChatState, type PlanEntry, initialState, reduce, restoreState } from "../../chatState";
import { type HostMessage, parseViewMessage } from "../../messages";
import { parseChatResult, parseProgress, parseReviewPlan, parseStagedContent, parseUndoResult } from "../../payloads";

const SID = "s1";
const PLAN_ID = "p-1";
const STAGED = {
  planId: PLAN_ID,
  state: "pending",
  description: "Greeting",
  files: [
    { path: "src/new.py", op: "create", state: "pending" },
    { path: "src/app.py", op: "update", state: "pending" },
    { path: "old.txt", op: "delete", state: "pending" },
  ],
};

function run(messages: HostMessage[], state: ChatState = initialState()): ChatState {
  return messages.reduce(reduce, state);
}

function progress(raw: Record<string, unknown>): HostMessage {
  const event = parseProgress({ sessionId: SID, ...raw });
  assert.ok(event, `unparsed ${JSON.stringify(raw)}`);
  return { type: "progress", event };
}

function reviewed(raw: Record<string, unknown>): HostMessage {
  return { type: "reviewed", plan: parseReviewPlan(raw) };
}

function moved(undo: boolean, checkpointId: string, paths: string[]): HostMessage {
  return { type: "moved", undo, result: parseUndoResult({ checkpointId, files: paths.map((path) => ({ path, exists: true })), overridden: [] }) };
}

function plans(state: ChatState): PlanEntry[] {
  return state.sessions.flatMap((s) => s.entries.filter((e): e is PlanEntry => e.kind === "plan"));
}

function badges(state: ChatState): [string, string][] {
  return plans(state).flatMap((p) => p.files.map((f): [string, string] => [f.path, f.status]));
}

const STAGED_TURN: HostMessage[] = [
  { type: "turnStarted", message: "Add a greeting module" },
  progress({ kind: "plan", data: { description: "Greeting", files: ["src/new.py", "src/app.py", "old.txt"] } }),
  progress({ kind: "review", data: STAGED }),
  { type: "turnEnded", result: parseChatResult({ sessionId: SID, text: "Staged.", blocks: [], plan: STAGED }) },
];

test("a staged plan is one pending plan entry with its planId, whatever order plan/review/result arrive in", () => {
  const state = run(STAGED_TURN);
  assert.equal(plans(state).length, 1, "the turn's plan event and the staged plan are one entry");
  const [plan] = plans(state);
  assert.equal(plan.planId, PLAN_ID);
  assert.equal(plan.done, false);
  assert.deepEqual(
    plan.files.map((f) => [f.path, f.op, f.status]),
    [
      ["src/new.py", "create", "pending"],
      ["src/app.py", "update", "pending"],
      ["old.txt", "delete", "pending"],
    ],
  );
  const onlyResult = run([STAGED_TURN[0], STAGED_TURN[3]]);
  assert.equal(plans(onlyResult)[0].planId, PLAN_ID, "no progress seen: the result alone shows the plan");
});

test("reject one with a reason, accept the rest: rejected, applied with the checkpoint, plan done", () => {
  const state = run([
    ...STAGED_TURN,
    reviewed({ ...STAGED, files: [STAGED.files[0], { ...STAGED.files[1], state: "rejected", reason: "keep print" }, STAGED.files[2]] }),
    reviewed({
      ...STAGED,
      state: "partial",
      checkpointId: "cp9",
      files: [{ ...STAGED.files[0], state: "accepted" }, { ...STAGED.files[1], state: "rejected", reason: "keep print" }, { ...STAGED.files[2], state: "accepted" }],
    }),
  ]);
  const [plan] = plans(state);
  assert.deepEqual(
    plan.files.map((f) => [f.path, f.status, f.reason, f.checkpointId]),
    [
      ["src/new.py", "applied", undefined, "cp9"],
      ["src/app.py", "rejected", "keep print", undefined],
      ["old.txt", "applied", undefined, "cp9"],
    ],
  );
  assert.equal(plan.done, true);
  assert.equal(restoreState(JSON.parse(JSON.stringify(state))).sessions[0].entries.length, state.sessions[0].entries.length);
});

test("files accepted one by one keep their own checkpoint; undo of one marks only its files undone", () => {
  const accepted = (states: string[], checkpointId?: string) =>
    reviewed({ ...STAGED, checkpointId, files: STAGED.files.map((f, i) => ({ ...f, state: states[i] })) });
  let state = run([...STAGED_TURN, accepted(["accepted", "pending", "pending"], "cpA"), accepted(["accepted", "accepted", "accepted"], "cpB")]);
  assert.deepEqual(
    plans(state)[0].files.map((f) => f.checkpointId),
    ["cpA", "cpB", "cpB"],
  );
  state = reduce(state, moved(true, "cpB", ["src/app.py", "old.txt"]));
  assert.deepEqual(badges(state), [
    ["src/new.py", "applied"],
    ["src/app.py", "undone"],
    ["old.txt", "undone"],
  ]);
  state = reduce(state, accepted(["accepted", "accepted", "accepted"])); // a later answer: still undone
  assert.equal(badges(state)[1][1], "undone");
  state = reduce(state, moved(false, "cpB", ["src/app.py", "old.txt"]));
  assert.deepEqual(
    badges(state).map(([, s]) => s),
    ["applied", "applied", "applied"],
  );
});

test("a refused accept keeps the file pending and says why", () => {
  const state = run([
    ...STAGED_TURN,
    reviewed({ ...STAGED, files: [{ ...STAGED.files[0], state: "accepted" }, STAGED.files[1], STAGED.files[2]], checkpointId: "cp1", refused: ["src/app.py changed since the change was staged"] }),
  ]);
  const [plan] = plans(state);
  assert.deepEqual(plan.refused, ["src/app.py changed since the change was staged"]);
  assert.equal(plan.files[1].status, "pending");
  assert.equal(plan.done, false);
});

test("a normal plan's badges go applied -> undone -> applied with undo and redo of its checkpoint", () => {
  const normal = (checkpointId: string, path: string): HostMessage[] => [
    { type: "turnStarted", message: `change ${path}` },
    progress({ kind: "plan", data: { description: path, files: [path] } }),
    progress({ kind: "file_applied", data: { path, action: "update_file", message: "", planned: true } }),
    { type: "turnEnded", result: parseChatResult({ sessionId: SID, text: "", blocks: [], plan: { description: path, files: [path], applied: [path], skipped: [], unplanned: [] }, checkpointId }) },
  ];
  let state = run([...normal("cp1", "a.py"), ...normal("cp2", "b.py")]);
  state = reduce(state, moved(true, "cp2", ["b.py"]));
  assert.deepEqual(badges(state), [
    ["a.py", "applied"],
    ["b.py", "undone"],
  ]);
  state = reduce(state, moved(true, "cp1", ["a.py"]));
  state = reduce(state, moved(false, "cp1", ["a.py"]));
  assert.deepEqual(badges(state), [
    ["a.py", "applied"],
    ["b.py", "undone"],
  ]);
});

test("a review decision reaches a plan in another session than the active one", () => {
  let state = run(STAGED_TURN);
  state = reduce(state, { type: "newChat" });
  state = reduce(state, reviewed({ ...STAGED, state: "rejected", files: STAGED.files.map((f) => ({ ...f, state: "rejected" })) }));
  assert.deepEqual(
    badges(state).map(([, s]) => s),
    ["rejected", "rejected", "rejected"],
  );
});

test("a server that cannot start is shown in the panel until it runs", () => {
  const error = "agent-ls server not found: /nope/agent-ls is not an executable file.";
  let state = reduce(initialState(), { type: "status", provider: "openai", model: "m", serverRunning: false, error });
  assert.equal(state.serverError, error);
  assert.equal(state.status, "server stopped");
  state = reduce(state, { type: "status", provider: "openai", model: "m", serverRunning: true });
  assert.equal(state.serverError, undefined);
  assert.equal(state.status, "openai · m");
});

test("the webview's Accept / Reject / staged diff messages are checked before the host acts", () => {
  assert.deepEqual(parseViewMessage({ type: "accept", planId: "p" }), { type: "accept", planId: "p" });
  assert.deepEqual(parseViewMessage({ type: "reject", planId: "p", files: ["a"] }), { type: "reject", planId: "p", files: ["a"] });
  assert.deepEqual(parseViewMessage({ type: "openStagedDiff", planId: "p", path: "a" }), { type: "openStagedDiff", planId: "p", path: "a" });
  for (const bad of [{ type: "accept" }, { type: "accept", planId: "" }, { type: "reject", planId: "p", files: [1] }, { type: "reject", planId: "p", files: [] }]) {
    assert.equal(parseViewMessage(bad), undefined, JSON.stringify(bad));
  }
});

test("review payloads parse defensively", () => {
  assert.throws(() => parseReviewPlan({ state: "pending" }), /planId/);
  const plan = parseReviewPlan({ planId: "p", state: "weird", files: [{ path: "a", op: "?", state: "?" }, 3], refused: "x" });
  assert.deepEqual(plan, { planId: "p", state: "pending", description: "", files: [{ path: "a", op: "update", state: "pending" }] });
  assert.deepEqual(parseStagedContent({ path: "old.txt", op: "delete", state: "pending" }), { path: "old.txt", op: "delete", state: "pending" });
  assert.equal(parseStagedContent({ path: "a", op: "create", state: "pending", content: "x\n" }).content, "x\n");
  assert.throws(() => parseStagedContent(null), /no path/);
});
