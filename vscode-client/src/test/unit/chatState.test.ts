/** The panel's model: what the user sees after a sequence of host messages. */

import assert from "node:assert/strict";
import { test } from "node:test";
import { type ChatState, initialState, newChat, reduce, restoreState, switchTo } from "../../chatState";
import type { HostMessage } from "../../messages";
import { parseProgress } from "../../payloads";

const SID = "s1";

function progress(raw: Record<string, unknown>): HostMessage {
  const event = parseProgress({ sessionId: SID, ...raw });
  assert.ok(event, `unparsed ${JSON.stringify(raw)}`);
  return { type: "progress", event };
}

function run(messages: HostMessage[], state: ChatState = initialState()): ChatState {
  return messages.reduce(reduce, state);
}

const PLAN_TURN: HostMessage[] = [
  { type: "turnStarted", message: "Add a greeting module", context: { uri: "file:///w/src/app.py" } },
  progress({ kind: "text", delta: "Here is " }),
  progress({ kind: "text", delta: "my next step." }),
  progress({ kind: "tool_call", data: { name: "list_files", args: {} } }),
  progress({ kind: "tool_result", data: { name: "list_files", ok: true, text: "src/app.py" } }),
  progress({ kind: "plan", data: { description: "Greeting", files: ["src/new.py", "src/app.py", "old.txt"] } }),
  progress({ kind: "file_applied", data: { path: "src/new.py", action: "create_file", message: "", planned: true } }),
];

test("streamed text deltas join into one assistant message", () => {
  const state = run(PLAN_TURN.slice(0, 3));
  const entries = state.sessions[0].entries;
  assert.deepEqual(entries[1], { kind: "assistant", text: "Here is my next step." });
  assert.equal(state.sessions[0].id, SID, "the server's session id is adopted from progress");
  assert.equal(state.busy, true);
  assert.equal(state.sessions[0].title, "Add a greeting module");
  assert.deepEqual(entries[0], { kind: "user", text: "Add a greeting module", context: "app.py" });
});

test("a tool result completes its tool row", () => {
  const tools = run(PLAN_TURN.slice(0, 5)).sessions[0].entries.filter((e) => e.kind === "tool");
  assert.deepEqual(tools, [{ kind: "tool", name: "list_files", args: "{}", result: "src/app.py", ok: true }]);
});

test("plan files go pending -> applied as file_applied arrives, then final statuses from the result", () => {
  const during = run(PLAN_TURN).sessions[0].entries.find((e) => e.kind === "plan");
  assert.ok(during?.kind === "plan");
  assert.deepEqual(
    during.files.map((f) => [f.path, f.status]),
    [
      ["src/new.py", "applied"],
      ["src/app.py", "pending"],
      ["old.txt", "pending"],
    ],
  );
  const ended = run([
    ...PLAN_TURN,
    {
      type: "turnEnded",
      result: {
        sessionId: SID,
        blocks: [],
        text: "Here is my next step.",
        plan: { description: "Greeting", files: ["src/new.py", "src/app.py", "old.txt"], applied: ["src/new.py", "src/app.py"], skipped: ["old.txt"], unplanned: [] },
        checkpointId: "cp1",
      },
    },
  ]);
  const plan = ended.sessions[0].entries.find((e) => e.kind === "plan");
  assert.ok(plan?.kind === "plan");
  assert.deepEqual(
    plan.files.map((f) => [f.path, f.status]),
    [
      ["src/new.py", "applied"],
      ["src/app.py", "applied"],
      ["old.txt", "skipped"],
    ],
  );
  assert.equal(plan.checkpointId, "cp1");
  assert.equal(plan.done, true);
  assert.equal(ended.busy, false);
  assert.equal(ended.sessions[0].entries.filter((e) => e.kind === "assistant").length, 1, "no duplicate answer");
});

test("a result whose text was not streamed is shown", () => {
  const state = run([
    { type: "turnStarted", message: "hi" },
    { type: "turnEnded", result: { sessionId: "x", text: "Hello!", blocks: [] } },
  ]);
  assert.deepEqual(state.sessions[0].entries.at(-1), { kind: "assistant", text: "Hello!" });
  assert.equal(state.sessions[0].id, "x");
});

test("errors and stops are shown in the transcript, never dropped", () => {
  const failed = run([
    { type: "turnStarted", message: "hi" },
    progress({ kind: "error", data: { message: "provider unreachable: connection refused" } }),
    { type: "turnEnded", error: "provider unreachable: connection refused" },
  ]);
  const notices = failed.sessions[0].entries.filter((e) => e.kind === "notice");
  assert.equal(notices.length, 2);
  assert.ok(notices.every((n) => n.kind === "notice" && n.level === "error" && n.text.includes("connection refused")));
  const stopped = run([{ type: "turnStarted", message: "hi" }, { type: "turnEnded", cancelled: true }]);
  assert.deepEqual(stopped.sessions[0].entries.at(-1), { kind: "notice", level: "info", text: "Stopped." });
  assert.equal(stopped.busy, false);
});

test("new chat keeps old sessions in the list; switching is refused while busy", () => {
  let state = run([{ type: "turnStarted", message: "first" }, { type: "turnEnded", result: { sessionId: "a", text: "ok", blocks: [] } }]);
  state = newChat(state);
  assert.equal(state.sessions.length, 2);
  assert.equal(state.active, 1);
  assert.equal(newChat(state), state, "an empty chat is reused");
  state = reduce(state, { type: "turnStarted", message: "second" });
  assert.equal(switchTo(state, 0).active, 1, "no switch while a turn runs");
  state = reduce(state, { type: "turnEnded", result: { sessionId: "b", text: "ok", blocks: [] } });
  assert.equal(switchTo(state, 0).active, 0);
  assert.deepEqual(
    state.sessions.map((s) => [s.id, s.title]),
    [
      ["a", "first"],
      ["b", "second"],
    ],
  );
});

test("file_applied outside a running plan is a notice (an unplanned edit)", () => {
  const state = run([
    { type: "turnStarted", message: "x" },
    progress({ kind: "file_applied", data: { path: "a.txt", action: "update_file", message: "", planned: false } }),
  ]);
  assert.deepEqual(state.sessions[0].entries.at(-1), { kind: "notice", level: "info", text: "update_file: a.txt" });
});

test("restored state never comes back busy and survives garbage", () => {
  const saved = JSON.parse(JSON.stringify(run([{ type: "turnStarted", message: "x" }])));
  const restored = restoreState(saved);
  assert.equal(restored.busy, false);
  assert.equal(restored.sessions[0].entries.length, 1);
  for (const junk of [undefined, null, 3, "x", {}, { sessions: [], active: 0 }, { sessions: [{}], active: "0" }]) {
    assert.deepEqual(restoreState(junk), initialState());
  }
  assert.equal(restoreState({ sessions: [{ title: "t", entries: [] }], active: 7 }).active, 0);
});
