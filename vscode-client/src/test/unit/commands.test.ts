/** run_command in the panel: which message requests are consents, the card's life, the output block. */

import assert from "node:assert/strict";
import { test } from "node:test";
import { type ChatState, initialState, reduce, restoreState } from "../../chatState";
import { OUTPUT_CUT, OUTPUT_KEPT } from "../../commandState";
import { ConsentBroker, parseConsent } from "../../consent";
import type { HostMessage } from "../../messages";
import { parseViewMessage } from "../../messages";
import { parseProgress } from "../../payloads";

// As server/features/command_consent.py words it: "<prefix><folder> (<path>):\n\n<command>".
const MESSAGE = "agent-ls: the model wants to run a command in / (/w/project):\n\npytest -q; echo 'a: b'\n";
const ACTIONS = [{ title: "Run" }, { title: "Always allow" }, { title: "Deny" }];
const WARNING = 2;

const COMMAND = { kind: "command", folder: "/ (/w/project)", command: "pytest -q; echo 'a: b'\n" } as const;

test("the server's consent request is recognised by its agentLs: command line and folder", () => {
  assert.deepEqual(parseConsent({ type: WARNING, message: MESSAGE, actions: ACTIONS, agentLs: COMMAND }), COMMAND);
});

test("a server without agentLs: its command consent is recognised by its exact words", () => {
  assert.deepEqual(parseConsent({ type: WARNING, message: MESSAGE, actions: ACTIONS }), COMMAND);
});

test("any other message request keeps VS Code's own prompt", () => {
  const others = [
    { type: 3, message: MESSAGE, actions: ACTIONS }, // not a warning
    { type: WARNING, message: MESSAGE, actions: ACTIONS.slice(0, 2) },
    { type: WARNING, message: MESSAGE, actions: [ACTIONS[1], ACTIONS[0], ACTIONS[2]] },
    { type: WARNING, message: MESSAGE, actions: null },
    { type: WARNING, message: "Some server: run it?", actions: ACTIONS },
    { type: WARNING, message: "agent-ls: the model wants to run a command in / without a command", actions: ACTIONS },
    { type: WARNING, message: MESSAGE, actions: ACTIONS, agentLs: { ...COMMAND, command: 3 } },
    { type: WARNING, message: MESSAGE, actions: ACTIONS, agentLs: { ...COMMAND, kind: "other" } },
    { type: WARNING, message: MESSAGE, actions: ACTIONS, agentLs: "command" },
  ];
  for (const params of others) {
    assert.equal(parseConsent(params), undefined, JSON.stringify(params));
  }
});

test("the broker answers each request once; denyAll answers the rest with Deny", async () => {
  const broker = new ConsentBroker();
  const first = broker.open();
  const second = broker.open();
  assert.equal(broker.answer(first.id, "Run"), true);
  assert.equal(broker.answer(first.id, "Deny"), false, "answered once");
  assert.deepEqual(broker.denyAll(), [second.id]);
  assert.equal(await first.answer, "Run");
  assert.equal(await second.answer, undefined);
  assert.equal(broker.waiting, 0);
});

function progress(raw: Record<string, unknown>): HostMessage {
  const event = parseProgress({ sessionId: "s1", ...raw });
  assert.ok(event, `unparsed ${JSON.stringify(raw)}`);
  return { type: "progress", event };
}

const run = (messages: HostMessage[], state: ChatState = initialState()) => messages.reduce(reduce, state);
const kinds = (state: ChatState) => state.sessions[0].entries.map((e) => e.kind);

const TURN: HostMessage[] = [
  { type: "turnStarted", message: "Run the tests" },
  progress({ kind: "tool_call", data: { name: "run_command", args: { command: "pytest" } } }),
  { type: "consent", id: "consent-1", prompt: { kind: "command", command: "pytest", folder: "/ (/w)" } },
];

test("a card waits, then shows the answer; output gathers in one block under the tool row", () => {
  let state = run(TURN);
  assert.deepEqual(state.sessions[0].entries.at(-1), {
    kind: "consent",
    id: "consent-1",
    prompt: { kind: "command", command: "pytest", folder: "/ (/w)" },
  });
  state = run(
    [
      { type: "consentClosed", id: "consent-1", choice: "Always allow" },
      progress({ kind: "command_output", data: { command: "pytest", text: "collected 3 items\n" } }),
      progress({ kind: "command_output", data: { command: "pytest", text: "3 passed\n" } }),
      progress({ kind: "tool_result", data: { name: "run_command", ok: true, text: "exit code 0" } }),
    ],
    state,
  );
  assert.deepEqual(kinds(state), ["user", "tool", "consent", "output"]);
  const [, tool, card, output] = state.sessions[0].entries;
  assert.equal(card.kind === "consent" && card.answer, "Always allow");
  assert.equal(output.kind === "output" && output.text, "collected 3 items\n3 passed\n");
  assert.equal(tool.kind === "tool" && tool.result, "exit code 0");
});

test("withdrawn (stop, closed panel) is Deny; a card restored from saved state is no longer waiting", () => {
  const withdrawn = run([...TURN, { type: "consentClosed", id: "consent-1" }]);
  const card = withdrawn.sessions[0].entries.at(-1);
  assert.equal(card?.kind === "consent" && card.answer, "Deny");
  const restored = restoreState(JSON.parse(JSON.stringify(run(TURN))));
  const again = restored.sessions[0].entries.at(-1);
  assert.equal(again?.kind === "consent" && again.answer, "Deny");
});

test("a long output keeps its end, and says so", () => {
  const line = "x".repeat(99) + "\n";
  const state = run([...TURN, progress({ kind: "command_output", data: { command: "pytest", text: line.repeat(2000) + "last\n" } })]);
  const output = state.sessions[0].entries.at(-1);
  assert.ok(output?.kind === "output");
  assert.ok(output.text.length <= OUTPUT_KEPT);
  assert.ok(output.text.startsWith(OUTPUT_CUT));
  assert.ok(output.text.endsWith("last\n"));
});

test("the panel's answer is checked: a known choice for a string id", () => {
  assert.deepEqual(parseViewMessage({ type: "consentAnswer", id: "consent-1", choice: "Deny" }), {
    type: "consentAnswer",
    id: "consent-1",
    choice: "Deny",
  });
  assert.equal(parseViewMessage({ type: "consentAnswer", id: "consent-1", choice: "Yes" }), undefined);
  assert.equal(parseViewMessage({ type: "consentAnswer", choice: "Run" }), undefined);
});
