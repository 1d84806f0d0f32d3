"""A streamed bare candidate's first try put off (`snippets._DEFER`): where no closing bracket
follows it yet, the stream waits for its next look instead of trying it at once. The blocks
stay those of the whole reply, a document is still released by the delta holding its closing
bracket, and a candidate that is not JSON holds the prose after it back 32 characters past
the delta that put it off at most."""

from __future__ import annotations

import json
import os
from itertools import accumulate

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from parsing import StreamParser, parse_reply
from parsing.blocks import Block
from parsing.json.snippets import match_bare_at
from parsing.regions import PENDING, NoMatch
from tests.unit.parsing.support import normalise

EXAMPLES = int(os.environ.get("AGENT_LS_FUZZ_EXAMPLES") or 300)
_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))

_ATOMS = [*'{}[]":,\\ \nab', '{"action": "text_response", "text_response": "hi"', '"x"', "1"]
_JSON_CHARS = st.lists(st.sampled_from(_ATOMS), min_size=1, max_size=60).map("".join)
"""JSON characters (the shape whose streaming the rule speeds up: most of its candidates
are put off) and the start of a document (which blocks would show a wrong decision)."""
_SPLITS = st.lists(st.integers(1, 20), min_size=1, max_size=60)
_SCALARS = st.one_of(
    st.integers(-9, 99), st.booleans(), st.none(), st.text("ab}]{[\"'\\ ", max_size=6)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text("ab", max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
).filter(lambda v: isinstance(v, list | dict))
_PROSE = st.text(alphabet="abc ,.:\n", max_size=30)


def _chunks(text: str, sizes: list[int]) -> list[str]:
    out, at, k = [], 0, 0
    while at < len(text):
        size = sizes[k % len(sizes)]
        out.append(text[at : at + size])
        at, k = at + size, k + 1
    return out


def _streamed(chunks: list[str]) -> list[list[Block]]:
    """The blocks each feed returned, then those of close()."""
    parser = StreamParser()
    return [parser.feed(chunk) for chunk in chunks] + [parser.close()]


@_SETTINGS
@given(_JSON_CHARS, _SPLITS)
def test_random_json_characters_stream_as_parsed_whole(text: str, sizes: list[int]) -> None:
    # a candidate put off is tried at a later look, over more text: it decides as the whole
    # reply does (were it taken for "no", or never tried again, the blocks would differ)
    streamed = [b for out in _streamed(_chunks(text, sizes)) for b in out]
    assert normalise(streamed) == normalise(parse_reply(text))


def _released_by(chunks: list[str]) -> tuple[list[int], list[Block]]:
    """After each chunk, how many characters of text have been released so far; and all
    the blocks (close() included)."""
    parser, released, counts, blocks = StreamParser(), 0, [], []
    for chunk in chunks:
        out = parser.feed(chunk)
        released += sum(b.end - b.start for b in out)
        counts.append(released)
        blocks += out
    return counts, blocks + parser.close()


@_SETTINGS
@given(_PROSE, _VALUES, st.sampled_from([None, 1]), _PROSE, _SPLITS)
def test_a_document_is_released_by_the_delta_holding_its_closing_bracket(
    before: str, value: object, indent: int | None, after: str, sizes: list[int]
) -> None:
    # only a candidate with no closing bracket after it is put off: one that may end in the
    # text is tried at once, whatever the chunking; one put off is tried again later
    doc = json.dumps(value, indent=indent)
    reply = before + " " + doc + after  # (after a word character, "[" is no candidate)
    chunks = _chunks(reply, sizes)
    released, blocks = _released_by(chunks)
    end = len(before) + 1 + len(doc)
    holding = next(k for k, fed in enumerate(accumulate(map(len, chunks))) if fed >= end)
    assert released[holding] >= end, (reply, chunks)
    assert normalise(blocks) == normalise(parse_reply(reply))


def _decided_at(reply: str, start: int) -> int:
    """The shortest prefix of ``reply`` on which the candidate at ``start`` is decided."""
    return next(
        stop
        for stop in range(start + 1, len(reply) + 1)
        if match_bare_at(reply[:stop], start, eof=False) is not PENDING
    )


@_SETTINGS
@given(
    st.sampled_from(["{a: ", "[t", '{"a": ', "[1, "]),
    st.text("ab ,:1", max_size=12),
    st.integers(1, 8),
)
def test_prose_after_a_put_off_candidate_that_is_not_json_waits_32_more_characters_at_most(
    opener: str, junk: str, delta: int
) -> None:
    # put off by the look after the delta that made it a candidate, it is tried again once
    # it has grown by 32 characters (the stream's rule for a short pending candidate): the
    # prose after a "no" is released by then
    reply = "See " + opener + junk + " not json, just words that go on" * 3
    decided = _decided_at(reply, 4)
    assume(decided <= 4 + 8 and isinstance(match_bare_at(reply, 4, eof=True), NoMatch))
    released, _ = _released_by(_chunks(reply, [delta]))
    put_off = -(-decided // delta) * delta  # (at most) where the look that put it off was
    holding = -(-(put_off + 32) // delta) - 1  # the delta that makes it 32 characters longer
    assert released[min(holding, len(released) - 1)] >= decided, (reply, released)
