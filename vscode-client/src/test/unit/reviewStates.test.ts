/**
 * Review mode's plan badges while the turn runs: the server reports each staged file as
 * `file_staged` (never `file_applied`), so no badge says "applied" before the user accepted.
 * Raw wire JSON through the extension's own parsers, badge by badge after every message.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { type ChatState, type PlanEntry, initialState, reduce } from "../../chatState";
import type { HostMessage } from "../../messages";
import { parseChatResult, parseProgress } from "../../payloads";

const SID = "s1";
const FILES = [
  { path: "src/new.py", action: "create_file", op: "create" },
  { path: "src/app.py", action: "update_file", op: "update" },
  { path: "old.txt", action: "delete_file", op: "delete" },
];
const STAGED = {
  planId: "p-1",
  state: "pending",
  description: "Greeting",
  files: FILES.map((f) => ({ path: f.path, op: f.op, state: "pending" })),
};

function progress(raw: Record<string, unknown>): HostMessage {
  const event = parseProgress({ sessionId: SID, ...raw });
  assert.ok(event, `unparsed ${JSON.stringify(raw)}`);
  return { type: "progress", event };
}

function badges(state: ChatState): string[][] {
  const plans = state.sessions.flatMap((s) => s.entries.filter((e): e is PlanEntry => e.kind === "plan"));
  return plans.flatMap((p) => p.files.map((f) => [f.path, f.status]));
}

test("a staged file parses as file_staged with its action", () => {
  const event = parseProgress({ sessionId: SID, kind: "file_staged", data: { path: "a.py", action: "update_file", message: "m", planned: true } });
  assert.deepEqual(event, { kind: "file_staged", sessionId: SID, path: "a.py", action: "update_file", message: "m", planned: true });
});

test("every badge stays pending from the plan to the staged result: nothing reads applied", () => {
  const messages: HostMessage[] = [
    { type: "turnStarted", message: "Add a greeting module" },
    progress({ kind: "plan", data: { description: "Greeting", files: FILES.map((f) => f.path) } }),
    ...FILES.map((f) => progress({ kind: "file_staged", data: { path: f.path, action: f.action, message: "", planned: true } })),
    progress({ kind: "review", data: STAGED }),
    { type: "turnEnded", result: parseChatResult({ sessionId: SID, text: "Proposed.", blocks: [], plan: STAGED }) },
  ];
  let state = initialState();
  for (const message of messages) {
    state = reduce(state, message);
    for (const [path, status] of badges(state)) {
      assert.equal(status, "pending", `${path} after ${JSON.stringify(message).slice(0, 80)}`);
    }
  }
  const plans = state.sessions[0].entries.filter((e): e is PlanEntry => e.kind === "plan");
  assert.equal(plans.length, 1);
  const last = plans[0];
  assert.equal(last.planId, "p-1");
  assert.deepEqual(
    last.files.map((f) => [f.path, f.op, f.status]),
    FILES.map((f) => [f.path, f.op, "pending"]),
  );
});

test("a staged file with no plan entry is a notice, not an applied line", () => {
  const state = reduce(initialState(), progress({ kind: "file_staged", data: { path: "a.py", action: "create_file", message: "", planned: false } }));
  const entries = state.sessions[0].entries;
  assert.deepEqual(entries, [{ kind: "notice", level: "info", text: "staged for review: create_file: a.py" }]);
});
