/** The extension's part in the server's code actions: agent.chat arguments, "Rewrite how?". */

import assert from "node:assert/strict";
import { test } from "node:test";
import { chatCommandParams, wantsInstruction } from "../../codeActions";

test("agent.chat arguments become chat params for the panel", () => {
  const range = { start: { line: 0, character: 0 }, end: { line: 2, character: 0 } };
  assert.deepEqual(chatCommandParams([{ message: "Explain", context: { uri: "file:///a.py", range, selectionText: "x = 1\n" } }]), {
    message: "Explain",
    context: { uri: "file:///a.py", range, selectionText: "x = 1\n" },
  });
  assert.deepEqual(chatCommandParams([{ message: "Hi", sessionId: "s", context: null }]), { message: "Hi", sessionId: "s" });
  for (const bad of [[], [null], ["Explain"], [{ message: "" }], [{ message: 3 }]]) {
    assert.equal(chatCommandParams(bad), undefined, JSON.stringify(bad));
  }
});

test("only an unresolved rewrite without wording asks the user", () => {
  assert.equal(wantsInstruction({ action: "rewrite", uri: "file:///a.py" }), true);
  assert.equal(wantsInstruction({ action: "rewrite", instruction: "use pathlib" }), false);
  assert.equal(wantsInstruction({ action: "rewrite", result: {} }), false);
  assert.equal(wantsInstruction({ action: "explain" }), false);
  assert.equal(wantsInstruction(undefined), false);
});
