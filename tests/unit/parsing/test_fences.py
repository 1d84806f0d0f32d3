"""Code fences close only at a closing fence line (CommonMark), open anywhere on a line.

A run of backticks inside a line of code (``# a ``` fence``, ``out = "```"``) is code: it
neither ends the block nor pairs with a later fence, so the code's JSON-looking lines stay text
and the documents after the block are found.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parsing import ActionBlock, StreamParser, TextBlock, ToolCallBlock, parse_reply
from parsing.fences import closing_line
from tests.unit.parsing.support import assert_tiles, normalise

CALL = '<tool_call>{"name": "list_files", "arguments": {"path": "."}}</tool_call>'
DOC = '{"action": "text_response", "text_response": "done"}'


def documents(text: str) -> list[ActionBlock | ToolCallBlock]:
    return [b for b in parse_reply(text) if not isinstance(b, TextBlock)]


def streamed(text: str, size: int) -> list:  # type: ignore[type-arg]
    parser, out = StreamParser(), []
    for i in range(0, len(text), size):
        out += parser.feed(text[i : i + size])
    return out + parser.close()


@pytest.mark.parametrize(
    "code",
    [
        '# a ``` fence\nx = {"action": "text_response", "text_response": "hi"}',
        'out = "```"\nprint({"name": "read_file", "arguments": {}})',
        "s = '```json'\nt = '{\"action\": \"tool_call\"}'\n    ```",  # 4 spaces: code
        "x = 1  ```\n``` not a closer, text follows the run",
        "``\n`` ```` ``\n~~~",
    ],
)
def test_backticks_inside_a_code_line_do_not_close_the_block(code: str) -> None:
    reply = f"Here:\n```python\n{code}\n```\nNow the call:\n{CALL}"
    [call] = documents(reply)
    assert isinstance(call, ToolCallBlock)
    assert call.start == reply.index("<tool_call>")
    for size in (1, 2, 3, 7, 64):
        assert normalise(streamed(reply, size)) == normalise(parse_reply(reply))


@pytest.mark.parametrize(
    ("closer", "closes"),
    [
        ("```", True),
        ("   ```", True),  # up to 3 spaces
        ("    ```", False),  # 4 spaces: a code line
        ("`````", True),  # longer than the opener
        ("```  \t", True),  # trailing whitespace
        ("```\r", True),  # CRLF line ending
        ("``` x", False),  # text after the run
        ("~~~", False),  # the other fence character
        ("x ```", False),  # not alone on its line
    ],
)
def test_closing_fence_line_rules(closer: str, closes: bool) -> None:
    reply = f"```python\nprint(1)\n{closer}\n{DOC}\n"
    found = documents(reply)
    assert bool(found) is closes
    if closes:
        assert found[0].start == reply.index(DOC)


def test_a_longer_opener_needs_a_closer_at_least_as_long() -> None:
    reply = f"````markdown\n```python\nx = 1\n```\n{DOC}\n````\n{DOC}"
    [action] = documents(reply)
    assert action.start == reply.rindex(DOC)


def test_an_unclosed_fence_runs_to_the_end_of_the_reply() -> None:
    reply = f"```python\nx = '```'\n{DOC}\n"
    assert documents(reply) == []
    assert normalise(streamed(reply, 1)) == normalise(parse_reply(reply))


def test_a_fence_indented_in_a_list_item_closes_at_its_own_indentation() -> None:
    reply = f"1. Run it:\n    ```python\n    x = '```'\n    ```\n{DOC}"
    [action] = documents(reply)
    assert action.start == reply.index(DOC)


def test_the_opener_may_follow_prose_on_its_line() -> None:
    reply = f"Here it is: ```json\n{DOC}\n```\nbye"
    [action] = documents(reply)
    assert action.document["text_response"] == "done"
    assert action.end == reply.index("\nbye")


def test_a_json_fence_closed_inline_after_the_value_still_closes() -> None:
    reply = f"```json\n{DOC}```\nthen {CALL}"
    action, call = documents(reply)
    assert isinstance(action, ActionBlock)
    assert action.end == reply.index("\nthen")
    assert isinstance(call, ToolCallBlock)


def test_a_json_fence_with_a_backtick_run_inside_a_string_is_one_value() -> None:
    doc = json.dumps({"action": "text_response", "text_response": "use ``` and\n```\nok"})
    reply = f"```json\n{doc}\n```\n{CALL}"
    action, call = documents(reply)
    assert isinstance(action, ActionBlock)
    assert action.document["text_response"] == "use ``` and\n```\nok"
    assert isinstance(call, ToolCallBlock)


# -- property: any code inside a fence of another language never yields a block -------------
_FRAGMENTS = st.sampled_from(
    [
        "```", "``", "`", "~~~", "```json", "```python", "    ```", " ", "x", "=", "\"", "'",
        '{"action": "text_response", "text_response": "x"}',
        '{"action": "start_multi_file", "plan": {"files_to_modify": []}}',
        '{"name": "read_file", "arguments": {"path": "a"}}',
        '{"function_name": "list_files", "args": {}}',
        "<tool_call>", "</tool_call>", "<think>", "</think>", "{", "}", "[", "]", ",", ":",
    ]
)  # fmt: skip
_LINE = st.lists(_FRAGMENTS, max_size=8).map("".join)
_CODE = st.lists(_LINE, min_size=1, max_size=8).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(
    code=_CODE,
    lang=st.sampled_from(["python", "js", "markdown", "sh", "text", "diff"]),
    run=st.sampled_from(["```", "````", "~~~"]),
    size=st.integers(1, 16),
)
def test_code_in_a_foreign_fence_never_yields_a_block(
    code: str, lang: str, run: str, size: int
) -> None:
    assume(closing_line(run).search(code) is None)  # a real closing line would end it
    reply = f"Look:\n{run}{lang}\n{code}\n{run}\nAnd now {CALL}"
    blocks = parse_reply(reply)
    assert_tiles(blocks, reply)
    [call] = [b for b in blocks if not isinstance(b, TextBlock)]
    assert isinstance(call, ToolCallBlock)
    assert call.start == reply.rindex("<tool_call>")
    assert normalise(streamed(reply, size)) == normalise(blocks)
