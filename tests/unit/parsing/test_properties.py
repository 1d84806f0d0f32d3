"""Property tests: the linear scan agrees with the seed's greedy loop, streaming agrees with
the whole-reply parse for every chunking, and no input makes the parser raise or lose text."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsing import StreamParser, parse_reply
from parsing.classify import blocks_of
from parsing.regions import Snippet
from parsing.snippets import Item, scan_reply
from tests.unit.parsing.support import assert_tiles, naive_items, normalise, replies

# AGENT_LS_FUZZ_EXAMPLES raises the count for a long run (bench/fuzz_parse.py does).
FAST = settings(
    max_examples=int(os.environ.get("AGENT_LS_FUZZ_EXAMPLES") or 120),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def stream(text: str, cuts: list[int]) -> list:  # type: ignore[type-arg]
    parser, out, last = StreamParser(), [], 0
    for cut in sorted(set(cuts)):
        out += parser.feed(text[last:cut])
        last = cut
    out += parser.feed(text[last:])
    return out + parser.close()


@FAST
@given(replies)
def test_linear_scan_equals_greedy_loop(text: str) -> None:
    def snippets(items: list[Item]) -> list[Snippet]:
        return [item for item in items if isinstance(item, Snippet)]

    assert snippets(scan_reply(text)) == snippets(naive_items(text))


@FAST
@given(replies)
def test_generated_documents_are_found(text: str) -> None:
    blocks = parse_reply(text)
    assert_tiles(blocks, text)
    assert normalise(blocks) == normalise(blocks_of(naive_items(text), text))


@FAST
@given(replies, st.data())
def test_streaming_equals_whole_parse(text: str, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12))
    streamed = stream(text, cuts)
    assert_tiles(streamed, text)
    assert normalise(streamed) == normalise(parse_reply(text))


@FAST
@given(replies)
def test_streaming_char_by_char(text: str) -> None:
    streamed = stream(text, list(range(len(text))))
    assert normalise(streamed) == normalise(parse_reply(text))


_TOKENS = [*"{}[]\"'`~<>:,\\ \nabt/*-0", "<think>", "</think>", "<tool_call>", "</tool_call>"]
_NOISE = st.lists(st.sampled_from([*_TOKENS, "```json", "```", "True", "null"]), max_size=60).map(
    "".join
)


@FAST
@given(st.one_of(_NOISE, st.text(max_size=80), replies.map(lambda s: s[: len(s) // 2])))
def test_never_raises_and_keeps_every_character(text: str) -> None:
    blocks = parse_reply(text)
    assert_tiles(blocks, text)
    assert normalise(stream(text, list(range(0, len(text), 3)))) == normalise(blocks)
