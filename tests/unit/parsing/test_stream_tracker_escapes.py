"""The stream's bracket tracker reads escapes across deltas: a document whose string holds
runs of backslashes, split anywhere, is still released by the delta holding its closing
brace (a tracker that lost the escape state would take the closing quote for an escaped one,
miss the brace, and hold the document back until its next scheduled look)."""

from __future__ import annotations

import json

import pytest

from parsing import StreamParser
from parsing.blocks import ActionBlock


def _released_at(reply: str, delta: int) -> int:
    """The end offset of the chunk whose feed returned the action block (-1: only close())."""
    parser = StreamParser()
    for at in range(0, len(reply), delta):
        out = parser.feed(reply[at : at + delta])
        if any(isinstance(b, ActionBlock) for b in out):
            return min(at + delta, len(reply))
    assert any(isinstance(b, ActionBlock) for b in parser.close())
    return -1


@pytest.mark.parametrize("delta", [1, 2, 3, 5, 16])
@pytest.mark.parametrize("backslashes", [1, 2, 3, 7, 8, 40])
def test_a_document_with_backslash_runs_is_released_by_its_closing_brace(
    delta: int, backslashes: int
) -> None:
    text = "\\" * backslashes + ' "quoted" ' + "\\" * backslashes
    doc = json.dumps({"action": "text_response", "text_response": text})
    reply = "Sure: " + doc + " and then a long tail of prose that goes on" * 3
    end = len("Sure: ") + len(doc)
    released = _released_at(reply, delta)
    holding = -(-end // delta) * delta  # the end of the chunk holding the closing brace
    assert released == min(holding, len(reply)), (delta, backslashes)
