/** Parsing what the server sends: progress kinds, results, undo and checkpoint lists. */

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseViewMessage } from "../../messages";
import { type ProgressEvent, parseChatResult, parseCheckpoints, parseProgress, parseUndoResult } from "../../payloads";
import type { ChatProgress } from "../../protocol";
import { statusText } from "../../statusText";

test("a notification typed as the generated ChatProgress becomes the flattened event", () => {
  const sent: ChatProgress[] = [
    { sessionId: "s", kind: "text", delta: "hi" },
    { sessionId: "s", kind: "file_applied", data: { path: "a.py", action: "create_file", message: "created", planned: true } },
    { sessionId: "s", kind: "error", data: { message: "boom", rolledBack: ["a.py"] } },
  ];
  const events: ProgressEvent[] = [
    { kind: "text", sessionId: "s", delta: "hi" },
    { kind: "file_applied", sessionId: "s", path: "a.py", action: "create_file", message: "created", planned: true },
    { kind: "error", sessionId: "s", message: "boom", rolledBack: ["a.py"] },
  ];
  assert.deepEqual(sent.map(parseProgress), events);
});

test("each progress kind becomes its typed event", () => {
  const cases: [Record<string, unknown>, unknown][] = [
    [{ kind: "text", delta: "hi" }, { kind: "text", sessionId: "s", delta: "hi" }],
    [{ kind: "tool_call", data: { name: "read_file", args: { paths: ["a"] } } }, { kind: "tool_call", sessionId: "s", name: "read_file", args: { paths: ["a"] } }],
    [{ kind: "tool_result", data: { name: "read_file", ok: false, text: "no such file" } }, { kind: "tool_result", sessionId: "s", name: "read_file", ok: false, text: "no such file" }],
    [{ kind: "plan", data: { description: "d", files: ["a", 3, "b"] } }, { kind: "plan", sessionId: "s", description: "d", files: ["a", "b"] }],
    [{ kind: "file_applied", data: { path: "a", action: "delete_file", message: "m", planned: false } }, { kind: "file_applied", sessionId: "s", path: "a", action: "delete_file", message: "m", planned: false }],
    [{ kind: "error", data: { message: "boom" } }, { kind: "error", sessionId: "s", message: "boom" }],
    [{ kind: "error", data: { message: "rolled back", rolledBack: ["a"], retry: 2, path: 5 } }, { kind: "error", sessionId: "s", message: "rolled back", rolledBack: ["a"], retry: 2 }],
    [{ kind: "plan", data: { description: "d", files: ["a"], applied: ["a"], skipped: [], unplanned: [] } }, { kind: "plan", sessionId: "s", description: "d", files: ["a"], applied: ["a"], skipped: [], unplanned: [] }],
  ];
  for (const [raw, expected] of cases) {
    assert.deepEqual(parseProgress({ sessionId: "s", ...raw }), expected);
  }
});

test("unknown or malformed progress is ignored", () => {
  for (const raw of [null, "x", { kind: "text" }, { sessionId: "s", kind: "weird" }, { sessionId: 3, kind: "text" }]) {
    assert.equal(parseProgress(raw), undefined);
  }
});

test("chat result with and without a plan", () => {
  assert.deepEqual(parseChatResult({ sessionId: "s", text: "t", blocks: [] }), { sessionId: "s", text: "t", blocks: [] });
  const block = { type: "text", start: 0, end: 1, text: "t", repaired: false, truncated: false, suspect: false, reply: 0 };
  assert.deepEqual(parseChatResult({ sessionId: "s", text: "t", blocks: [block, { type: "?" }, 3] }).blocks, [block]);
  const full = parseChatResult({
    sessionId: "s",
    text: "t",
    blocks: [],
    plan: { description: "d", files: ["a"], applied: ["a"], skipped: [], unplanned: ["b"] },
    checkpointId: "c",
  });
  assert.deepEqual(full.plan, { description: "d", files: ["a"], applied: ["a"], skipped: [], unplanned: ["b"] });
  assert.equal(full.checkpointId, "c");
  assert.throws(() => parseChatResult({ text: "t" }), /sessionId/);
});

test("undo result and checkpoint list", () => {
  assert.deepEqual(parseUndoResult({ checkpointId: "c", files: [{ path: "a", exists: false }], overridden: ["a"] }), {
    checkpointId: "c",
    files: [{ path: "a", exists: false }],
    overridden: ["a"],
  });
  assert.throws(() => parseUndoResult(null));
  const list = parseCheckpoints([{ id: "c", time: "2026-01-01T00:00:00+00:00", description: "d", sessionId: "s", files: ["a"], state: "undone" }]);
  assert.equal(list[0].state, "undone");
  assert.equal(list[0].folders, undefined);
  const multi = parseCheckpoints([{ id: "c", files: ["front/a.ts", "back/x.py"], state: "applied", folders: ["front", "back"] }]);
  assert.deepEqual(multi[0].folders, ["front", "back"]);
  assert.throws(() => parseCheckpoints({}), /no list/);
});

test("webview messages are validated before the host acts on them", () => {
  assert.deepEqual(parseViewMessage({ type: "send", text: "go", sessionId: "s" }), { type: "send", text: "go", sessionId: "s" });
  assert.deepEqual(parseViewMessage({ type: "send", text: "go", sessionId: 5 }), { type: "send", text: "go" });
  assert.deepEqual(parseViewMessage({ type: "undo", extra: 1 }), { type: "undo" });
  for (const bad of [null, {}, { type: "rm -rf" }, { type: "send", text: "  " }, { type: "openDiff", path: "a" }, { type: "openFile" }]) {
    assert.equal(parseViewMessage(bad), undefined, JSON.stringify(bad));
  }
});

test("status bar text: provider, spinner while busy, stopped", () => {
  assert.equal(statusText({ provider: "openai", model: "m" }, true, false), "$(hubot) openai · m");
  assert.match(statusText({ provider: "openai", model: "m" }, true, true), /sync~spin/);
  assert.match(statusText(undefined, false, false), /stopped/);
});
