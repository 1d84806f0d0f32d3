"""parse_reply: which JSON becomes an action or a tool call, what stays text, spans, flags."""

from __future__ import annotations

import json

import pytest

from parsing import ActionBlock, TextBlock, ToolCallBlock, find_snippets, parse_reply
from parsing.blocks import ACTION_KINDS
from tests.unit.parsing.support import assert_tiles

DOC = {"action": "text_response", "text_response": "Sure."}
DOC_JSON = json.dumps(DOC)


def kinds(text: str) -> list[str]:
    blocks = parse_reply(text)
    assert_tiles(blocks, text)
    return [b.kind for b in blocks]


@pytest.mark.parametrize(
    "reply",
    [
        DOC_JSON,
        f"Here you go:\n{DOC_JSON}\nDone.",
        f"```json\n{DOC_JSON}\n```",
        f"```JSON\n{DOC_JSON}\n```",
        f"Here it is: ```json {DOC_JSON} ``` ok",
        f"```\n{DOC_JSON}\n```",
        f"~~~json\n{DOC_JSON}\n~~~",
        f"````json\n{DOC_JSON}\n````",
    ],
)
def test_action_document_in_every_wrapping(reply: str) -> None:
    [action] = [b for b in parse_reply(reply) if isinstance(b, ActionBlock)]
    assert action.document == DOC
    assert action.action == "text_response"
    assert not (action.repaired)
    assert not (action.truncated)
    assert not (action.suspect)
    assert action.text == reply[action.start : action.end]


def test_all_four_action_kinds() -> None:
    assert {"text_response", "tool_call", "start_multi_file", "continue_multi_file"} == ACTION_KINDS
    for kind in sorted(ACTION_KINDS):
        [block] = parse_reply(json.dumps({"action": kind}))
        assert isinstance(block, ActionBlock)


@pytest.mark.parametrize(
    "reply",
    [
        '```json\n{"name": "my-pkg", "version": "1.0.0", "scripts": {"test": "jest"}}\n```',
        "See reference [1] and [2, 3] for details.",
        '{"action": "rm_rf", "path": "/"}',
        '["action", "text_response"]',
        '```python\nd = {"action": "text_response", "text_response": "x"}\n```',
        '<think>I could answer {"action": "text_response", "text_response": "x"}</think>',
        "```\n<read_file>\n<path>demo.txt</path>\n</read_file>\n```",
    ],
)
def test_other_json_stays_text(reply: str) -> None:
    blocks = parse_reply(reply)
    assert [b.kind for b in blocks] == ["text"]
    assert blocks[0].text == reply


def test_tool_call_shapes() -> None:
    hermes = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n</tool_call>'
    alias = '<tool_use>{"function_name": "list_files", "args": {}}</tool_use>'
    bare = '{"name": "read_file", "arguments": "{\\"path\\": \\"b.py\\"}"}'
    fenced = '```json\n{"name": "read_file", "arguments": {"path": "c.py"}, "id": "1"}\n```'
    blocks = [b for b in parse_reply("\n".join([hermes, alias, bare, fenced])) if b.kind != "text"]
    assert [(b.name, b.args) for b in blocks if isinstance(b, ToolCallBlock)] == [
        ("read_file", {"path": "a.py"}),
        ("list_files", {}),
        ("read_file", {"path": "b.py"}),
        ("read_file", {"path": "c.py"}),
    ]
    assert [b.origin for b in blocks if isinstance(b, ToolCallBlock)] == [
        "tool_call", "tool_call", "bare_json", "fenced_json",
    ]  # fmt: skip


def test_not_a_tool_call_when_extra_keys_or_bad_args() -> None:
    assert kinds('{"name": "x", "arguments": {}, "version": "2"}') == ["text"]
    assert kinds('{"name": "x", "arguments": "not json"}') == ["text"]
    assert kinds('{"name": "", "arguments": {}}') == ["text"]


def test_closing_tag_and_fence_inside_strings_do_not_cut() -> None:
    call = '<tool_call>{"name": "bash", "arguments": {"cmd": "echo </tool_call> ```"}}</tool_call>'
    [block] = parse_reply(call)
    assert isinstance(block, ToolCallBlock)
    assert block.args == {"cmd": "echo </tool_call> ```"}
    fenced = '```json\n{"action": "text_response", "text_response": "```py\\nx\\n```"}\n```\nafter'
    assert kinds(fenced) == ["action", "text"]


def test_reasoning_is_never_executed_but_the_real_call_is() -> None:
    call = '{"name": "web_search", "arguments": {"q": "x"}}'
    reply = f"<think>draft:\n<tool_call>{call}</tool_call>\n</think>\n<tool_call>{call}</tool_call>"
    blocks = parse_reply(reply)
    assert [b.kind for b in blocks] == ["text", "tool_call"]
    assert blocks[0].text.startswith("<think>")
    assert kinds(f"<thinking>{call}</thinking><reasoning>{DOC_JSON}</reasoning>") == ["text"]
    assert kinds(f"<think>unclosed {DOC_JSON}") == ["text"]


def test_a_tag_mention_in_prose_is_not_a_region() -> None:
    reply = f"Use the `<tool_call>` tag or `<think>`. Then:\n{DOC_JSON}"
    assert kinds(reply) == ["text", "action"]


def test_undecodable_tool_call_is_opaque_text() -> None:
    reply = '<tool_call>{::: ::: }</tool_call> then {"c": 2}'
    [snippet] = find_snippets(reply)
    assert snippet.value == {"c": 2}
    blocks = parse_reply(reply)
    assert [b.kind for b in blocks] == ["text"]


def test_tool_call_cut_at_its_closing_tag_is_truncated() -> None:
    reply = '<tool_call>{"name": "x", "arguments": {"a": </tool_call>'
    [block] = parse_reply(reply)
    assert isinstance(block, ToolCallBlock)
    assert block.truncated


def test_truncated_document_is_flagged() -> None:
    reply = 'Writing it:\n{"action": "start_multi_file", "first_file": {"file": {"content": "def f'
    [text, action] = parse_reply(reply)
    assert isinstance(action, ActionBlock)
    assert action.truncated
    assert action.repaired
    assert not action.suspect
    assert action.document["first_file"]["file"]["content"] == "def f"
    assert text.text == "Writing it:\n"


def test_repaired_document_is_flagged_but_complete() -> None:
    [action] = parse_reply('{"action": "text_response", "text_response": "ok",}')
    assert isinstance(action, ActionBlock)
    assert action.repaired
    assert not action.truncated


def test_offsets_are_code_points() -> None:
    prefix = "日本語 😀 é\n"
    [text, action] = parse_reply(prefix + DOC_JSON)
    assert text == TextBlock(0, len(prefix), prefix)
    assert (action.start, action.end) == (len(prefix), len(prefix) + len(DOC_JSON))


def test_several_values_in_one_fence_tile_it() -> None:
    reply = '```json\n{"a": 1}\n{"action": "text_response", "text_response": "x"}\n```'
    blocks = parse_reply(reply)
    assert [b.kind for b in blocks] == ["text", "action"]
    assert_tiles(blocks, reply)
    assert next(s.value for s in find_snippets(reply)) == {"a": 1}


def test_a_missing_comma_between_members_on_one_line_is_fixed() -> None:
    reply = '```json\n{"action": "text_response" "text_response": "x"}\n```'
    [snippet] = find_snippets(reply)
    assert snippet.value == {"action": "text_response", "text_response": "x"}
    assert snippet.fixes == {"missing_comma"}


def test_json_fence_body_that_only_json_repair_reads_is_a_snippet() -> None:
    reply = '```json\n{"action" "text_response", "text_response": "x"}\n```'
    [snippet] = find_snippets(reply)
    assert snippet.value == {"action": "text_response", "text_response": "x"}
    assert snippet.repaired
    assert "json_repair" in snippet.fixes
    assert not snippet.suspect


def test_json_repair_output_that_lost_characters_is_suspect() -> None:
    body = '{"action": "text_response", "text_response": "x" junk words, "b": 1}'
    [action] = [b for b in parse_reply(f"```json\n{body}\n```") if isinstance(b, ActionBlock)]
    assert action.repaired
    assert action.suspect
    assert action.document["text_response"] == "x"


def test_bare_json_in_prose_never_goes_to_json_repair() -> None:
    reply = 'Java: {" + a + ", " + b + "}; and String[] args {\n int n = 1; }'
    assert find_snippets(reply) == []
