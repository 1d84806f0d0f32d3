"""The stream's look path does less per delta (issue 21 item 10) and decides the same: a
pending candidate is tried first and, while it waits, the look ends there (`snippets.retry`);
the tail held back is searched by `_HOLD` only where its last character may end one; the
released text is dropped once 256 characters of it precede the unreleased text, not at every
delta. Blocks stay those of the whole reply (`test_stream_put_off`, `test_stream_whole`)."""

from __future__ import annotations

import copy
import os
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsing import StreamParser, parse_reply
from parsing.regions import PENDING
from parsing.snippets import _HOLD_SEARCH, ScanState, _held_from, retry, scan, scan_items
from tests.unit.parsing.support import normalise

EXAMPLES = int(os.environ.get("AGENT_LS_FUZZ_EXAMPLES") or 300)
_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))

_TAIL = st.text(
    st.sampled_from([*'{}[]":,\\ \n\tab$._-<`~xZ9', "é", "\u00a0", "\u2003", "١"]), max_size=8
)
_ATOMS = [*'{}[]":,\\ \nab', '{"a": ', '["b", ', "```json\n", "```", "<tool_call>", "\n"]
_REPLIES = st.lists(st.sampled_from(_ATOMS), min_size=1, max_size=50).map("".join)


@_SETTINGS
@given(_TAIL, st.integers(0, 8))
def test_the_held_tail_is_where_the_hold_pattern_finds_it(text: str, search: int) -> None:
    # the pattern runs only where the last character but whitespace may end a held tail
    search = min(search, len(text))
    hold = _HOLD_SEARCH(text, search)
    assert _held_from(text, search) == (len(text) if hold is None else hold.start())


def _pending_after(prefix: str) -> ScanState | None:
    state = ScanState()
    scan(prefix, state, eof=False)
    return state if state.pending else None


def _fields(state: ScanState) -> tuple[object, ...]:
    return (state.pos, state.search, state.pending, state.put_off, state.deferred, state.skip)


@_SETTINGS
@given(_REPLIES, st.integers(1, 40), st.integers(1, 40))
def test_a_retry_answers_as_the_scan_and_leaves_its_state(reply: str, cut: int, more: int) -> None:
    # a look at a pending candidate: tried first (`retry`), then the scan goes on from its
    # answer; a candidate that still waits ends the look with the state the scan leaves
    prefix = reply[:cut]
    found = _pending_after(prefix)
    if found is None:
        return
    text = reply[: cut + more]
    scanned, retried = copy.deepcopy(found), copy.deepcopy(found)
    items = list(scan_items(text, scanned, eof=False))
    first = retry(text, retried)
    if first is PENDING:
        assert items == []
    else:
        assert list(scan_items(text, retried, eof=False, first=first)) == items
    assert _fields(retried) == _fields(scanned)


def test_a_pending_candidate_its_pattern_no_longer_matches_is_left_to_the_scan() -> None:
    # '{"a' is a candidate at the end of the text (an unclosed key), '{"a"}' none at all
    state = _pending_after('{"a')
    assert state is not None
    assert retry('{"a"}', state) is None
    assert _fields(state)[:2] == (0, 0)


def test_released_text_is_kept_up_to_256_characters_before_the_unreleased_text() -> None:
    # not dropped at every delta (indices shifted, readings kept of a pending candidate
    # lost), yet bounded: the stream keeps at most 256 released characters
    rng = random.Random(3)
    reply = "".join(rng.choices('{}[]":,\\ \nab', k=20_000))
    parser, kept, blocks = StreamParser(), [], []
    for at in range(0, len(reply), 16):
        blocks += parser.feed(reply[at : at + 16])
        kept.append(parser._state.pos)
        held = parser._text + "".join(parser._new)  # (chunks a pending candidate waits on)
        assert parser._base + len(held) == min(at + 16, len(reply))
    assert max(kept) <= 256
    assert sum(k > 65 for k in kept) > len(kept) // 4
    assert normalise(blocks + parser.close()) == normalise(parse_reply(reply))
