"""StreamParser: text is released as soon as it cannot start a snippet, snippets when they
close, spans are absolute; close() decides what is still open."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsing import ActionBlock, StreamParser, TextBlock, ToolCallBlock, parse_reply
from tests.unit.parsing.support import corpus_files, normalise, read_reply

DOC = json.dumps({"action": "text_response", "text_response": "Hi } ] ``` </tool_call>"})


def texts(blocks: list) -> str:  # type: ignore[type-arg]
    return "".join(b.text for b in blocks if isinstance(b, TextBlock))


def test_prose_streams_immediately() -> None:
    parser = StreamParser()
    assert texts(parser.feed("Hello wor")) == "Hello wor"
    assert texts(parser.feed("ld. ")) == "ld. "


def test_possible_snippet_starts_are_held_back() -> None:
    parser = StreamParser()
    assert texts(parser.feed("See {")) == "See "
    assert texts(parser.feed("x} and <tool_ca")) == "{x} and "
    assert texts(parser.feed("ll> is a tag; ``")) == "<tool_call> is a tag; "
    assert texts(parser.feed("` fence")) == ""
    assert texts(parser.close()) == "``` fence"


def test_snippet_released_when_it_closes_with_absolute_spans() -> None:
    parser = StreamParser()
    out = parser.feed("Plan:\n")
    for ch in DOC[:-1]:
        out += parser.feed(ch)
    assert not [b for b in out if isinstance(b, ActionBlock)]
    out += parser.feed(DOC[-1] + "\nbye")
    [action] = [b for b in out if isinstance(b, ActionBlock)]
    assert (action.start, action.end) == (6, 6 + len(DOC))
    assert action.text == DOC
    assert texts(out + parser.close()) == "Plan:\n\nbye"


def test_tool_call_tag_released_after_its_closing_tag() -> None:
    call = '<tool_call>{"name": "ls", "arguments": {"cmd": "x </tool_call>"}}'
    parser = StreamParser()
    assert parser.feed(call) == []
    [block] = parser.feed("</tool_call>")
    assert isinstance(block, ToolCallBlock)
    assert block.args == {"cmd": "x </tool_call>"}


def test_reasoning_streams_as_text_while_open() -> None:
    parser = StreamParser()
    out = parser.feed("<think>I will call {")
    out += parser.feed('"name": "x", "arguments": {}} now')
    assert texts(out).startswith("<think>I will call {")
    assert not [b for b in out if not isinstance(b, TextBlock)]


def test_close_flags_a_cut_off_document() -> None:
    parser = StreamParser()
    parser.feed('{"action": "start_multi_file", "message": "wri')
    [action] = parser.close()
    assert isinstance(action, ActionBlock)
    assert action.truncated
    assert action.document["message"] == "wri"


def test_feed_after_close_is_an_error() -> None:
    parser = StreamParser()
    parser.close()
    with pytest.raises(ValueError, match="after close"):
        parser.feed("x")
    assert parser.close() == []


def test_long_document_in_small_chunks_is_linear_enough() -> None:
    content = "def f():\n    return {'a': [1, 2]}\n" * 3000
    doc = json.dumps({"action": "continue_multi_file", "next_file": {"file": {"content": content}}})
    parser = StreamParser()
    out = []
    for i in range(0, len(doc), 40):
        out += parser.feed(doc[i : i + 40])
    [action] = [b for b in out if isinstance(b, ActionBlock)]
    assert action.document["next_file"]["file"]["content"] == content


# -- streaming == whole-reply parse, for every chunking (issue 11 item 4) ---------------------
SET_MODE = 'Set {mode: <think>} first.\n{"function_name": "list_files", "args": {}}'


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 16, 64])
def test_a_brace_before_a_think_tag_does_not_swallow_the_call_in_small_chunks(size: int) -> None:
    parser, out = StreamParser(), []
    for i in range(0, len(SET_MODE), size):
        out += parser.feed(SET_MODE[i : i + size])
    out += parser.close()
    [call] = [b for b in out if isinstance(b, ToolCallBlock)]
    assert (call.name, call.args) == ("list_files", {})
    assert texts(out) == "Set {mode: <think>} first.\n"


def _chunked(text: str, sizes: list[int]) -> list:  # type: ignore[type-arg]
    parser, out, i, k = StreamParser(), [], 0, 0
    while i < len(text):
        size = sizes[k % len(sizes)]
        out += parser.feed(text[i : i + size])
        i, k = i + size, k + 1
    return out + parser.close()


CORPUS = corpus_files("replies") + corpus_files("json-repair-regressions")


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
@settings(max_examples=10, deadline=None)
@given(sizes=st.lists(st.integers(1, 24), min_size=1, max_size=40), ones=st.booleans())
def test_every_corpus_reply_streams_as_parsed_whole(
    path: Path, sizes: list[int], ones: bool
) -> None:
    text = read_reply(path)
    chunks = [1] if ones else sizes
    assert normalise(_chunked(text, chunks)) == normalise(parse_reply(text))


# A fence opened after text on its line ("Here: ```python") closes only at a line indented by
# at most 3 spaces: the indentation rule reads back to the opener's line start. The stream
# kept one character of released text, so it saw the opener as indented by one space and
# closed the fence at "    ```", then found a tool call the whole parse reads as code.
OPENER_AFTER_TEXT = [
    'Here: ```python\nx = 1\n    ```\nthen {"name": "ls", "arguments": {}} done',
    # the line's start more than 64 characters back: no indentation either
    "Here:" + " " * 70 + '```python\nx = 1\n    ```\nthen {"name": "ls", "arguments": {}}',
    # an opener indented on its own line: its indentation counts (a list item's fence)
    '1. Run:\n   ```python\n   x = 1\n      ```\n{"name": "ls", "arguments": {}} done',
]


@pytest.mark.parametrize("reply", OPENER_AFTER_TEXT)
@pytest.mark.parametrize("sizes", [[1], [2], [3], [5], [1, 5, 2, 4, 3], [7, 1], [64]])
def test_a_fence_closes_where_its_opener_line_says_in_any_chunking(
    reply: str, sizes: list[int]
) -> None:
    assert normalise(_chunked(reply, sizes)) == normalise(parse_reply(reply))


_OPENER_LINE = st.tuples(
    st.sampled_from(["", "Here: ", "Here:", "Here:" + " " * 70, "1. ", "   ", "     "]),
    st.sampled_from(["```", "```python", "~~~", "````"]),
).map("".join)
_FENCE_LINE = st.tuples(
    st.sampled_from(["", " ", "   ", "    ", "      ", " " * 9, "\t"]),
    st.sampled_from(["```", "~~~", "````", "x = 1"]),
).map("".join)


@settings(deadline=None)
@given(
    opener=_OPENER_LINE,
    lines=st.lists(_FENCE_LINE, min_size=1, max_size=3),
    sizes=st.lists(st.integers(1, 8), min_size=1, max_size=6),
)
def test_fence_indentation_streams_as_parsed_whole(
    opener: str, lines: list[str], sizes: list[int]
) -> None:
    # an opener after text, after spaces or indented on its own line; lines that may close
    # it; a tool call that is code unless one did
    reply = "\n".join([opener, *lines, '{"name": "ls", "arguments": {}}'])
    assert normalise(_chunked(reply, sizes)) == normalise(parse_reply(reply))
