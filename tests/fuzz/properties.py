"""The properties every reply must satisfy, shared by the fuzz target and the corpus replay."""

from __future__ import annotations

from parsing import StreamParser, find_snippets, parse_reply
from tests.unit.parsing.support import assert_tiles, normalise


def check(text: str, cut_every: int) -> None:
    """Never raises, keeps every character (spans tile the reply), snippet spans nest in the
    reply, and streaming in chunks of ``cut_every`` gives the whole-reply blocks."""
    blocks = parse_reply(text)
    assert_tiles(blocks, text)
    for s in find_snippets(text):
        assert 0 <= s.start <= s.value_start < s.value_end <= s.end <= len(text)
    parser, out = StreamParser(), []
    for i in range(0, len(text), cut_every):
        out += parser.feed(text[i : i + cut_every])
    out += parser.close()
    assert_tiles(out, text)
    assert normalise(out) == normalise(blocks)
