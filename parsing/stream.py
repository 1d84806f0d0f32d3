"""Incremental parsing of a streamed reply (SPEC §3 "Streaming").

`StreamParser.feed(chunk)` returns the blocks that are decided: text as soon as it can no
longer be the start of a snippet (a trailing ``{``, ``<tool_ca`` or ````` is held back), each
snippet once it closes, reasoning and foreign code blocks as they stream. `close()` returns
the rest, deciding what was still open (a cut-off document is flagged ``truncated``).

Equality with `parse_reply`: for every way of chunking a reply, the streamed blocks have the
same non-text blocks (same spans, values and flags) and the same concatenated text between
them as ``parse_reply(whole)``; text may arrive as several consecutive `TextBlock` pieces.
Spans are absolute offsets in the whole reply.

Cost: the stream keeps only the text not yet released and at most `_CUT` (256) released
characters before it (the indices of a waiting candidate's readings hold: its tries resume).
While one is undecided, new chunks are only appended and watched by a small string-aware
bracket tracker (`stream_tracker`: each character is seen by it once while the same candidate
stays pending). The candidate is looked at again:
at once when the tracker sees its first possible close (again after each doubling of the
candidate); else, when the tracker has seen something that may close it and the candidate has
grown by 1/8, or when it has doubled, either way by at least 32 characters. A look at a
pending candidate of 32 characters or more resumes the work of the last one (`parsing.resume`:
the tolerant reading suspended where it needed more text, finished readings, bracket counts),
so the looks at one candidate cost about one reading of it, and a reply costs linear time
overall whatever its chunking (one-character deltas included). The price: a snippet whose
end was not its first possible close may be released up to 1/8 of its length (at least 32
characters) late, and a candidate that turns out to be prose up to its length (at least 32
characters) late; ``close()`` releases everything. A short candidate with no closing bracket
yet is not even tried by the look that finds it (`snippets._DEFER`: most often the try said
"wait"); its first try is the next look's. A look at a pending candidate tries it first and,
while it still waits, returns at once (`snippets.retry`: no scan of the text after it).
"""

from __future__ import annotations

from parsing.blocks import Block, TextBlock
from parsing.classify import blocks_of
from parsing.json.repair_fallback import spend_from, stop_spending
from parsing.regions import PENDING
from parsing.resume import Resumes, enter, leave
from parsing.snippets import ScanState, free_until, scan_items
from parsing.snippets import retry as retry_pending
from parsing.stream_tracker import Tracker, fresh_tracker

_STEP = 8
"""A pending candidate is looked at again once it has grown by 1/_STEP (and may have closed)."""
_RESUME_FROM = 32
"""A pending candidate at least this long has its readings kept across looks (`resume`): a
shorter one is read again for less than the work of keeping it (fences then an action key
streamed: 3% more instructions when those were kept too; random JSON characters: 1% more)."""
_FLOOR = 32
"""A short pending candidate is looked at again once it has grown by this many characters
(not at every delta: a look costs more than a delta), but for its first possible close."""
_CUT = 256
"""Released text is dropped once more than this many characters of it precede the unreleased
text (not at every delta: its indices shift, and the readings kept of a pending candidate
(`parsing.resume`) are those of the text they read)."""
_CONTEXT = 65
"""At most this many released characters are kept before the unreleased text: one, but after
spaces back to the last other character (`_keep_from`). A fence opener's indentation is read
back to its line's start (`fences._opener_indent`, which counts at most 64 characters): with
one character kept, ``Here: ```python`` released up to the opener read as indented by one
space."""


class StreamParser:
    """Feed a reply chunk by chunk; get blocks as soon as they are decided."""

    def __init__(self) -> None:
        self._text = ""
        self._base = 0
        self._new: list[str] = []
        self._state = ScanState()
        self._tracker: Tracker | None = None
        self._tracked_from = -1  # absolute start of the pending text the tracker has seen
        self._hit = False
        self._since = 0
        self._behind = 0  # characters at the text's end the tracker has not read yet
        self._pending_len = 0
        self._free_from = 0  # pending size from which a possible close is looked at at once
        self._closed = False
        self._resumes = Resumes()  # the passes' work on the pending candidate, kept

    def feed(self, chunk: str) -> list[Block]:
        """Add ``chunk`` to the reply; return the blocks now decided."""
        if self._closed:
            raise ValueError("feed() after close()")
        if not chunk:
            return []
        tracker = self._tracker
        if tracker is None:  # nothing pending: nothing waits in `_new` either
            state = self._state
            if (
                state.close is None
                and state.pos == state.search == len(self._text)
                and "{" not in chunk
                and "[" not in chunk
                and "<" not in chunk
                and "`" not in chunk
                and "~" not in chunk
            ):  # everything so far is released, no region is open, and no character of the
                # chunk can start one (`snippets._CANDIDATE`; ``in``: a regex call costs more)
                return [self._release_plain(chunk)]
            text = self._text = self._text + chunk
            if state.close is None:
                end = free_until(text, state)
                if end >= 0:  # no candidate is tried: a look would release up to ``end``
                    return self._release_to(text, end)
            return self._run(eof=False)
        self._new.append(chunk)
        since = self._since = self._since + len(chunk)
        if since >= _FLOOR and since >= self._pending_len:
            # a look comes whatever the tracker says: it reads this chunk in `_run`, and
            # only if the same candidate is still pending then
            self._behind = len(chunk)
            return self._run(eof=False)
        self._hit = tracker.feed(chunk) or self._hit
        if not self._hit or not self._look_wanted():
            return []  # nothing may have closed it (a look comes once it has doubled)
        return self._run(eof=False)

    def _look_wanted(self) -> bool:
        """Something may have closed the pending candidate: is it worth a look now (see the
        module docstring)?"""
        since, pending = self._since, self._pending_len
        if since >= _FLOOR and since >= pending // _STEP:
            return True
        grown = pending + since
        if grown >= self._free_from:  # the first possible close at this size: at once
            self._free_from = 2 * grown
            return True
        return False

    def _release_plain(self, chunk: str) -> TextBlock:
        start = self._base + len(self._text)
        if chunk[-1] != " ":  # context for the next candidate (see `_keep_from`)
            self._text = chunk[-1]
        else:
            j = len(chunk.rstrip(" "))  # (`_keep_from` when the spaces start in this chunk)
            if j and len(chunk) - j < _CONTEXT:
                self._text = chunk[j - 1 :]
            else:
                text = chunk if len(chunk) >= _CONTEXT else self._text + chunk
                self._text = text[_keep_from(text, len(text)) :]
        kept = len(self._text)
        self._base = start + len(chunk) - kept
        state = self._state
        state.pos = state.search = kept
        state.skip.clear()
        return TextBlock(start, start + len(chunk), chunk)

    def _release_to(self, text: str, end: int) -> list[Block]:
        """`_run` where nothing was pending and no candidate is tried (`snippets.free_until`):
        the text is released up to ``end``, where a candidate put off may now be pending."""
        state, base = self._state, self._base
        pos = state.pos
        state.pos = state.search = end
        blocks: list[Block] = []
        if end > pos:
            blocks.append(TextBlock(base + pos, base + end, text[pos:end]))
        if end > _CUT:
            text = self._cut(text)
        if state.pending:  # (a new candidate: see `_run`)
            search = state.search
            self._tracker, self._tracked_from = fresh_tracker(text[search:]), self._base + search
            self._free_from, self._pending_len = 0, len(text) - search
        return blocks

    def _cut(self, text: str) -> str:
        """Drop the released text but the context `_keep_from` keeps; the kept text."""
        state = self._state
        keep_from = _keep_from(text, state.pos)
        self._base += keep_from
        state.shift(keep_from)
        self._resumes.clear()  # its indices are those of the text before the shift
        text = self._text = text[keep_from:]
        return text

    def close(self) -> list[Block]:
        """The reply is complete: return every remaining block."""
        if self._closed:
            return []
        self._closed = True
        return self._run(eof=True)

    def _run(self, eof: bool) -> list[Block]:
        text, state, base = self._text, self._state, self._base
        if self._new:
            text += "".join(self._new)
            self._new.clear()
        retry = self._tracker is not None and not eof  # (the candidate at state.search)
        if self._tracker is None or self._pending_len < _RESUME_FROM:
            # no candidate was pending, or a very short one: nothing worth resuming
            blocks = _look(text, state, eof, base, retry)
        else:
            token = enter(self._resumes, text)
            try:
                blocks = _look(text, state, eof, base, retry)
            finally:
                leave(token)
        self._hit, self._since = False, 0
        behind, self._behind = self._behind, 0
        if blocks is None:  # the same candidate still waits (nothing released)
            self._text = text
            if behind:
                self._tracker.feed(text[len(text) - behind :])  # type: ignore[union-attr]
            self._pending_len = len(text) - state.search
            return []
        if state.pos > _CUT:
            text = self._cut(text)
        else:
            self._text = text
        if not state.pending or eof:
            self._tracker, self._tracked_from = None, -1
            self._resumes.clear()
            return blocks
        pending_from = self._base + state.search
        if self._tracker is None or self._tracked_from != pending_from:
            # a new candidate: its text so far is scanned once (later chunks go to feed)
            self._tracker, self._tracked_from = fresh_tracker(text[state.search :]), pending_from
            self._free_from = 0
        elif behind:
            self._tracker.feed(text[len(text) - behind :])
        self._pending_len = len(text) - state.search
        return blocks


def _look(text: str, state: ScanState, eof: bool, base: int, retry: bool) -> list[Block] | None:
    """The blocks a scan of ``text`` decides (None: the candidate pending at ``state.search``,
    tried again first when ``retry``, still waits), under the stream's one json-repair
    budget (`repair_fallback`) when a fence or tag may open in it (json-repair reads only
    their bodies: without one, the budget is not made active)."""
    if "<" not in text and "`" not in text and "~" not in text:  # (no regex call: see `Tracker`)
        return _scan(text, state, eof, base, retry)
    state.repairs.base = base  # (its allowance depends on where a body ends in the reply)
    spending = spend_from(state.repairs)
    try:
        return _scan(text, state, eof, base, retry)
    finally:
        stop_spending(spending)


def _scan(text: str, state: ScanState, eof: bool, base: int, retry: bool) -> list[Block] | None:
    first = retry_pending(text, state) if retry else None
    if first is PENDING:
        return None
    return blocks_of(scan_items(text, state, eof, first), text, base=base)


def _keep_from(text: str, pos: int) -> int:
    """Where the text kept before ``pos`` (released) starts: one character back, or after
    spaces the last other character (a line break included) at most `_CONTEXT` characters
    back, else that far back. What is kept then answers `fences._opener_indent` as the whole
    reply does for an opener on ``pos``'s line: a character other than a space before it, or
    more than 64 characters, make it 0; only spaces back to the line's start count."""
    if pos <= 1 or text[pos - 1] != " ":
        return max(0, pos - 1)
    stop = max(0, pos - _CONTEXT)
    return max(stop, stop + len(text[stop:pos].rstrip(" ")) - 1)
