"""The first look again at a pending candidate resumes the try that found it (issue 21 item
10): the stream keeps the text that look read (no shift of indices while the candidate
waits), and a look's store takes the reading its first try left in the one slot
(`resume.take_stopped`). Same blocks as a whole parse (`test_stream_put_off` and
`test_stream_whole` check the equality on random text)."""

from __future__ import annotations

from contextlib import suppress

from parsing import StreamParser, parse_reply
from parsing.blocks import Block, TextBlock
from parsing.json.scan import NeedMore
from parsing.json.tolerant import parse_tolerant
from parsing.resume import Resumes, enter, keep_stopped, leave, take_stopped
from parsing.snippets import ScanState, free_until


def test_a_look_with_a_store_resumes_the_reading_left_in_the_slot() -> None:
    text = '["a\\q", "b", "c'
    with suppress(NeedMore):  # a try outside a look: its reading is kept in the slot
        parse_tolerant(text, 0, eof=False)
    stopped = take_stopped(text, (0, None))
    assert stopped is not None
    keep_stopped(text, (0, None), stopped)
    longer = text + 'cc", "d'
    resumes = Resumes()
    token = enter(resumes, longer)
    try:
        with suppress(NeedMore):
            parse_tolerant(longer, 0, eof=False)
    finally:
        leave(token)
    assert resumes.suspended[(0, None)] is stopped  # resumed, not read again
    assert take_stopped(longer, (0, None)) is None


def test_the_text_a_pending_candidate_was_found_in_is_kept_while_it_waits() -> None:
    prose = "Some prose, then a list: "
    candidate = '["a\\q", ["b"], "c'  # (a closer after it: tried at once, not put off)
    p = StreamParser()
    blocks = p.feed(prose + candidate)
    assert _text(blocks) == prose
    rest = "cc" * 20 + '", "d"]'
    streamed = blocks + p.feed(rest[:40])
    assert p._base == 0  # the indices of its readings still hold
    assert p._text.startswith(prose)
    streamed += p.feed(rest[40:]) + p.close()
    whole = parse_reply(prose + candidate + rest)
    assert [b for b in streamed if b.kind != "text"] == [b for b in whole if b.kind != "text"]
    assert _text(streamed) == _text(whole)


def _text(blocks: list[Block]) -> str:
    return "".join(b.text for b in blocks if isinstance(b, TextBlock))


def test_a_candidate_put_off_is_pending_without_a_look() -> None:
    """With nothing pending, a delta whose first candidate is put off (`snippets._put_off`)
    is settled by `free_until` as the scan would leave it (no look: the stream feeds on),
    and the candidate is tried by the stream's next look, as before."""
    state = ScanState()
    text = 'Here is a list: ["a", "b'
    assert free_until(text, state) == 16
    assert (state.search, state.pending, state.put_off) == (16, True, True)
    assert free_until("Some prose, no candidate ", ScanState()) == 25
    assert free_until('Closed: ["a"] and', ScanState()) == -1  # tried at once: a look
    p = StreamParser()
    blocks = p.feed(text)
    assert _text(blocks) == "Here is a list: "
    blocks += p.feed('", "c"] then prose, and more of it. ') + p.close()
    assert _text(blocks) == _text(parse_reply(text + '", "c"] then prose, and more of it. '))
