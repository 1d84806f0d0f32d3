"""merge_text over a streamed reply's blocks: the text the parser releases delta by delta is
joined into the same blocks as the pairwise join and the whole-reply parse give, documents
untouched and in order; one pass, so a 5000-delta answer is cheap."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from parsing import Block, StreamParser, TextBlock, parse_reply
from parsing.blocks import merge_text

PIECES = [
    "Some text. ",
    '```json\n{"action": "text_response", "text_response": "done"}\n```\n',
    '<tool_call>{"name": "list_files", "arguments": {}}</tool_call>',
    '{"action": "tool_call", "tool_call": {"function_name": "read_file", "args": {}}}',
    "`inline` and { braces } ",
    "\n\n",
]


def pairwise(blocks: list[Block]) -> list[Block]:
    """The obvious definition: each text block joined onto a text block before it."""
    merged: list[Block] = []
    for block in blocks:
        previous = merged[-1] if merged else None
        if isinstance(block, TextBlock) and isinstance(previous, TextBlock):
            merged[-1] = TextBlock(previous.start, block.end, previous.text + block.text)
        else:
            merged.append(block)
    return merged


def streamed(reply: str, size: int) -> list[Block]:
    parser = StreamParser()
    blocks: list[Block] = []
    for start in range(0, len(reply), size):
        blocks += parser.feed(reply[start : start + size])
    return blocks + parser.close()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=8), st.integers(min_value=1, max_value=9))
def test_joined_like_the_pairwise_merge(pieces: list[str], size: int) -> None:
    blocks = streamed("".join(pieces), size)
    assert merge_text(blocks) == pairwise(blocks)
    assert merge_text(blocks) == merge_text(parse_reply("".join(pieces)))


def test_a_long_answer_is_one_text_block() -> None:
    blocks = streamed("word " * 5000, 8)
    assert len(blocks) > 1000
    [block] = merge_text(blocks)
    assert block.text == "word " * 5000
    assert (block.start, block.end) == (0, 5 * 5000)
