"""One json-repair budget per reply (issue 21 item 10), spent in proportion to the reply's
size: a reply of junk ```json bodies spends it once; the bodies after that are not repaired
and stay text, nothing lost; a body our own passes decode (a valid action after the junk) is
still read; the stream spends it alike.

(No timing here: bench/parse_shapes.py --only junk prints the figures.)"""

from __future__ import annotations

import random
import string

from parsing import ActionBlock, StreamParser, parse_reply
from parsing.json.repair_fallback import (
    REPAIR_BUDGET_CALLS,
    REPLY_BUDGET_CALLS,
    REPLY_FLOOR_CALLS,
    ReplyRepairs,
    repair_last_resort,
    spend_from,
    stop_spending,
)
from tests.unit.parsing.support import assert_tiles, normalise

REPAIRABLE = '```json\n{"action" "text_response", "text_response": "x"}\n```\n'
"""A body only json-repair reads (a missing colon)."""
VALID = '```json\n{"action": "text_response", "text_response": "after"}\n```\n'


def _junk() -> str:
    """A ```json body json-repair works on past the whole budget (random printable text)."""
    rng = random.Random(7)
    body = "".join(rng.choices(string.printable.replace("`", ""), k=15_000))
    return "```json\n{" + body + "\n```\n"


def _actions(reply: str) -> list[object]:
    blocks = parse_reply(reply)
    assert_tiles(blocks, reply)
    return [b.document for b in blocks if isinstance(b, ActionBlock)]


def _streamed(reply: str, delta: int) -> list[object]:
    parser, out = StreamParser(), []
    for i in range(0, len(reply), delta):
        out += parser.feed(reply[i : i + delta])
    return normalise(out + parser.close())


def test_a_repairable_body_alone_is_repaired() -> None:
    assert _actions("Here:\n" + REPAIRABLE) == [{"action": "text_response", "text_response": "x"}]


def test_after_junk_bodies_spent_the_budget_a_repairable_body_stays_text() -> None:
    junk = _junk()
    reply = junk + "and\n" + junk.replace("{", "[", 1) + REPAIRABLE + VALID
    actions = _actions(reply)
    assert actions == [{"action": "text_response", "text_response": "after"}]


def test_the_stream_spends_the_budget_as_the_whole_reply_does() -> None:
    reply = _junk() + REPAIRABLE + VALID
    whole = normalise(parse_reply(reply))
    assert _streamed(reply, 16) == whole
    assert _streamed(reply, 4093) == whole


def test_a_body_tried_again_costs_nothing_more() -> None:
    repairs = ReplyRepairs(calls=REPAIR_BUDGET_CALLS)
    body = '{"action" "text_response", "text_response": "x"}'
    token = spend_from(repairs)
    try:
        first = repair_last_resort(body)
        left = repairs.left
        assert repair_last_resort(body) == first
    finally:
        stop_spending(token)
    assert first is not None
    assert repairs.left == left < REPAIR_BUDGET_CALLS


def test_a_short_reply_spends_in_proportion_so_a_long_one_still_repairs_after_junk() -> None:
    """Up to a body's end the reply's repairs may spend ~1 call per character read (at least
    `REPLY_FLOOR_CALLS`): a junk body early in a reply does not take the whole budget, and a
    repairable body 60 KB on is repaired (before, the junk spent all of it)."""
    assert REPLY_FLOOR_CALLS < REPLY_BUDGET_CALLS
    prose = "Some prose between the bodies.\n" * 1_500  # ~46 KB
    reply = _junk() + prose + REPAIRABLE + VALID
    expected = [
        {"action": "text_response", "text_response": "x"},
        {"action": "text_response", "text_response": "after"},
    ]
    assert _actions(reply) == expected
    assert _streamed(reply, 16) == normalise(parse_reply(reply))
