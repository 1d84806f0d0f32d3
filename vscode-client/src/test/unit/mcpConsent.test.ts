/** MCP in the panel: the tool call's consent and the `.mcp.json` trust prompt as cards. */

import assert from "node:assert/strict";
import { test } from "node:test";
import { type ChatState, initialState, reduce, restoreState } from "../../chatState";
import { choicesFor, isConsentChoice, parseConsent, prettyArguments } from "../../consent";
import type { HostMessage } from "../../messages";
import { parseViewMessage } from "../../messages";
import type { ToolConsent, TrustConsent } from "../../protocol";

// As server/features/command_consent.py sends them (tests/e2e/test_consent_marker.py).
const WARNING = 2;
const RUN_ALWAYS_DENY = [{ title: "Run" }, { title: "Always allow" }, { title: "Deny" }];
const TRUST_DENY = [{ title: "Trust" }, { title: "Deny" }];
const TOOL: ToolConsent = { kind: "mcp_tool", server: "everything", tool: "echo", arguments: '{"message": "hi"}' };
const TOOL_MESSAGE = 'agent-ls: the model wants to call the tool echo of the MCP server everything with:\n\n{"message": "hi"}';
const TRUST: TrustConsent = {
  kind: "mcp_trust",
  path: "/w/project/.mcp.json",
  servers: [
    { name: "everything", runs: "node /x/index.js stdio" },
    { name: "docs", runs: "https://mcp.example.com/mcp" },
  ],
};
const TRUST_MESSAGE = "agent-ls: /w/project/.mcp.json starts MCP servers that run:\n\n...\n\nTrust the MCP servers of .mcp.json?";

test("an MCP tool call's consent is recognised: server, tool, arguments; its buttons are a command's", () => {
  const prompt = parseConsent({ type: WARNING, message: TOOL_MESSAGE, actions: RUN_ALWAYS_DENY, agentLs: TOOL });
  assert.deepEqual(prompt, TOOL);
  assert.deepEqual(prompt && choicesFor(prompt), ["Run", "Always allow", "Deny"]);
});

test("the trust prompt is recognised: the file and what each server runs; Trust / Deny", () => {
  const prompt = parseConsent({ type: WARNING, message: TRUST_MESSAGE, actions: TRUST_DENY, agentLs: TRUST });
  assert.deepEqual(prompt, TRUST);
  assert.deepEqual(prompt && choicesFor(prompt), ["Trust", "Deny"]);
});

test("a marker whose actions, fields or type do not match keeps VS Code's own prompt", () => {
  const others = [
    { type: WARNING, message: TOOL_MESSAGE, actions: TRUST_DENY, agentLs: TOOL },
    { type: WARNING, message: TRUST_MESSAGE, actions: RUN_ALWAYS_DENY, agentLs: TRUST },
    { type: 3, message: TOOL_MESSAGE, actions: RUN_ALWAYS_DENY, agentLs: TOOL },
    { type: WARNING, message: TOOL_MESSAGE, actions: RUN_ALWAYS_DENY, agentLs: { ...TOOL, arguments: { message: "hi" } } },
    { type: WARNING, message: TOOL_MESSAGE, actions: RUN_ALWAYS_DENY, agentLs: { ...TOOL, server: undefined } },
    { type: WARNING, message: TRUST_MESSAGE, actions: TRUST_DENY, agentLs: { ...TRUST, servers: [{ name: "x" }] } },
    { type: WARNING, message: TRUST_MESSAGE, actions: TRUST_DENY, agentLs: { ...TRUST, servers: "x" } },
    { type: WARNING, message: TOOL_MESSAGE, actions: RUN_ALWAYS_DENY }, // no marker, not a command's words
  ];
  for (const params of others) {
    assert.equal(parseConsent(params), undefined, JSON.stringify(params));
  }
});

test("the arguments are shown indented; text that is not JSON as it came", () => {
  assert.equal(prettyArguments('{"b": [1, 2], "a": "x"}'), '{\n  "b": [\n    1,\n    2\n  ],\n  "a": "x"\n}');
  assert.equal(prettyArguments("not json {"), "not json {");
});

const run = (messages: HostMessage[], state: ChatState = initialState()) => messages.reduce(reduce, state);
const last = (state: ChatState) => state.sessions[0].entries.at(-1);

test("the cards wait, then show the answer; withdrawn is Deny; a restored card no longer waits", () => {
  const asked = run([
    { type: "turnStarted", message: "Echo" },
    { type: "consent", id: "consent-1", prompt: TRUST },
    { type: "consentClosed", id: "consent-1", choice: "Trust" },
    { type: "consent", id: "consent-2", prompt: TOOL },
  ]);
  const [, trust, tool] = asked.sessions[0].entries;
  assert.deepEqual(trust, { kind: "consent", id: "consent-1", prompt: TRUST, answer: "Trust" });
  assert.deepEqual(tool, { kind: "consent", id: "consent-2", prompt: TOOL });
  const withdrawn = run([{ type: "consentClosed", id: "consent-2" }], asked);
  assert.deepEqual(last(withdrawn), { ...tool, answer: "Deny" });
  const restored = restoreState(JSON.parse(JSON.stringify(asked)));
  assert.deepEqual(last(restored), { ...tool, answer: "Deny" });
});

test("a card saved before cards had a prompt is restored as a command's", () => {
  const saved = { sessions: [{ title: "t", entries: [{ kind: "consent", id: "consent-1", command: "ls", folder: "/ (/w)", answer: "Run" }] }], active: 0 };
  assert.deepEqual(last(restoreState(saved)), { kind: "consent", id: "consent-1", prompt: { kind: "command", command: "ls", folder: "/ (/w)" }, answer: "Run" });
});

test("Trust is an answer the panel may send; anything else is dropped", () => {
  assert.equal(isConsentChoice("Trust"), true);
  assert.deepEqual(parseViewMessage({ type: "consentAnswer", id: "consent-1", choice: "Trust" }), { type: "consentAnswer", id: "consent-1", choice: "Trust" });
  assert.equal(parseViewMessage({ type: "consentAnswer", id: "consent-1", choice: "trust" }), undefined);
});
