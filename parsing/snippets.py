"""The splitter: one left-to-right pass that finds every snippet of a reply (SPEC §3).

Reference semantics: the seed's greedy loop (take the first text block in which some parser,
in priority order, finds a match; split; repeat) gives the same result as this scan wherever
snippets do not overlap. Where they would, this scan decides left to right: the earliest
candidate wins (the higher-priority parser on a tie: reasoning tag, tool-call tag, fence,
bare JSON); a snippet ends at its string-aware end, so a fence, tag or brace inside a JSON
string never cuts it; opaque regions (reasoning, code in other languages) are skipped whole.

A regular expression jumps from one candidate to the next, so prose costs C speed. Each
candidate is decided once; a bare ``{``/``[`` that failed marks the brackets nested in it and
still open at the failure point as failing too, so ``[`` x 10000 is linear.

`scan` is resumable: it takes a `ScanState` and an ``eof`` flag. With ``eof=False`` (streaming)
it stops at the first decision that needs more text and releases text only up to where it can
no longer be the start of a snippet. With ``eof=True`` it runs to the end.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from parsing.fences import match_fence_at, match_reasoning_at
from parsing.json.repair_fallback import ReplyRepairs, spend_from, stop_spending
from parsing.json.snippets import match_bare_at
from parsing.regions import PENDING, Found, Match, NoMatch, Opaque, Snippet
from parsing.xml_snippets import match_tool_tag_at

# A bracket is a candidate when what follows it looks like JSON. The look-ahead is bounded
# (whitespace <= 256, an unquoted key <= 128 characters), so deciding one costs O(1) and the
# streamed tail held back while undecided (`_HOLD`) stays short whatever the reply holds.
# A quoted key must be followed by ``:`` (or a comment, or the end of the text); a key longer
# than 256 characters or followed by more than 256 spaces is left to `match_bare_at` (so this
# never refuses what `json.snippets._OBJECT_START` accepts, and a prefix refused stays refused
# whatever follows: streaming releases it at once). ``{"{"{"...`` then costs C speed.
# A ``[`` whose first element is a ``{`` followed by what can start no key (nor end the
# object, a comment or the text) is no candidate either: every pass rejects it right there
# (the tolerant pass's `_key`), so ``[{`` x n, tried from each ``[``, was 1 s per 100 KB.
# Every alternative starts with its literal character (```{2,}`` for ```{3,}``, a ``[``'s
# look-behind after it): a search then skips every other character at C speed (else it tries
# the whole pattern at each one: 1.7x the time on bracket-dense text, 3.5x on prose).
_QUOTED_KEY = (
    r"(?:\"(?>[^\"\\]|\\[\s\S]){0,256}+(?:\"(?:\s{0,256}+(?:[:/]|\Z)|\s{256})|(?!\"))"
    r"|'(?>[^'\\]|\\[\s\S]){0,256}+(?:'(?:\s{0,256}+(?:[:/]|\Z)|\s{256})|(?!')))"
)
_CANDIDATE = re.compile(
    r"<(?:think|thinking|reasoning|tool_call|tool_use)>"
    r"|``{2,}|~~{2,}"
    rf"|\{{(?=\s{{0,256}}+(?:}}|{_QUOTED_KEY}|[A-Za-z_$][\w$.-]{{0,127}}+\s{{0,256}}+:))"
    r"|\[(?<![\w\])]\[)(?=\s{0,256}+(?:[-\d\"'\[\]tfnTFN]|\{(?=\s{0,256}+(?:[\s}\]\"'/A-Za-z_$]|\Z))))"
)
_MARKER_CHARS = "<`~{["
_CANDIDATE_SEARCH = _CANDIDATE.search
_SHORT = 256
"""Below this many characters the pattern's own search finds the next candidate faster than
a ``str.find`` per marker character (which wins on long prose: memchr)."""
# The tail of a streamed text that may still become a candidate: every way `_CANDIDATE` can
# run off the end of the text (``{mode`` becomes one when ``:`` follows).
_HOLD = re.compile(
    r"(?:\{\s{0,256}+(?:[A-Za-z_$][\w$.-]{0,127}+\s{0,256}+)?+|\[\s{0,256}+"
    r"|<[A-Za-z_]{0,12}+|``?+|~~?+)\Z"
)
_HOLD_SEARCH = _HOLD.search
_HOLD_LAST = "{[<`~_$.-"
"""What but a letter or digit (`_HOLD`'s ``\\w``) can end a tail `_HOLD` matches, whitespace
stripped."""
_DEFER = 32
"""Streaming, a bare candidate with at most this many characters so far and no closing
bracket after it outside strings (`_put_off`) is not tried at once: it is pending until the
stream's next look at it (once a bracket may close it, or it has grown by 32 characters;
see `stream`). Of such first tries of random JSON characters streamed in 16-character
deltas, 700 of 848 said "wait"; a "no" (141) now comes up to 32 characters later, and so
does a snippet whose closer a strict reading takes for a string character (7: quotes kept
inside a string), as the stream's bracket tracker already delays it."""
_STRINGS = re.compile(r'"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+(?:"|\Z)')
"""A double-quoted string, closed or running to the end."""


@dataclass(slots=True)  # not frozen (speed): see regions.py
class TextSpan:
    """A run of text ``[start, end)`` between snippets."""

    start: int
    end: int


Item = TextSpan | Snippet


@dataclass
class ScanState:
    """Where a resumable scan stands."""

    pos: int = 0
    """Everything before ``pos`` has been released."""
    search: int = 0
    """Where to look for the next candidate (or for the opaque region's closer)."""
    close: str | None = None
    """Inside an opaque region: its closing marker."""
    fence: bool = False
    line: re.Pattern[str] | None = None
    """Inside a code fence: its closing fence line (see `fences`)."""
    skip: set[int] = field(default_factory=set)
    pending: bool = False
    """The last scan stopped at an undecided candidate at ``search``."""
    repairs: ReplyRepairs = field(default_factory=ReplyRepairs)
    """The reply's json-repair budget: active (`spend_from`) around each scan by the
    entry points (`scan`, `classify.parse_reply`, the stream's looks)."""
    deferred: int = -1
    """The bare candidate whose first try was put off (`_DEFER`): the next scan tries it."""
    put_off: bool = False
    """The last scan stopped at a candidate it put off (pending, untried)."""

    def shift(self, delta: int) -> None:
        """Re-base every index by ``-delta`` (the stream dropped released text)."""
        self.pos -= delta
        self.search -= delta
        self.deferred -= delta
        if self.skip:
            self.skip = {p - delta for p in self.skip if p >= delta}


class _Finder:
    """Next candidate at or after a position: ``str.find`` per marker character (memchr
    speed, each result cached until passed), then the full candidate pattern there."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.next_at: dict[str, int] | None = None  # built on the first long search

    def next_candidate(self, pos: int) -> re.Match[str] | None:
        """(For a tail longer than `_SHORT`: see `scan_items`.)"""
        text, next_at = self.text, self.next_at
        misses = 0
        if next_at is None:
            next_at = self.next_at = dict.fromkeys(_MARKER_CHARS, -1)
        while True:
            if misses > 8:  # dense marker characters that are not candidates ("{{{{"):
                return _CANDIDATE.search(text, pos)  # the regex engine's own loop is faster
            best = -1
            for char, at in next_at.items():
                if 0 <= at < pos or at == -1:
                    at = text.find(char, pos)
                    next_at[char] = at if at >= 0 else -2
                if at >= 0 and (best < 0 or at < best):
                    best = at
            if best < 0:
                return None
            m = _CANDIDATE.match(text, best)
            if m is not None:
                return m
            pos = best + 1
            misses += 1


def match_at(text: str, i: int, token: str, eof: bool) -> Match:
    """Try the parser whose candidate ``token`` starts at ``text[i]``."""
    first = token[0]
    if first == "<":
        if token[1:].startswith(("tool_call", "tool_use")):
            return match_tool_tag_at(text, i, eof)
        return match_reasoning_at(text, i)
    if first in "`~":
        return match_fence_at(text, i, token, eof)
    return match_bare_at(text, i, eof)


def _release(state: ScanState, upto: int) -> TextSpan | None:
    if upto > state.pos:
        span = TextSpan(state.pos, upto)
        state.pos = upto
        return span
    return None


def scan(text: str, state: ScanState, eof: bool) -> list[Item]:
    """Advance ``state`` over ``text`` and return the items released (see the docstring)."""
    token = spend_from(state.repairs)
    try:
        return list(scan_items(text, state, eof))
    finally:
        stop_spending(token)


def scan_items(
    text: str, state: ScanState, eof: bool, first: Match | None = None
) -> Iterator[Item]:
    """`scan` as an iterator: each item is released as soon as it is known (a consumer that
    turns them into blocks at once keeps fewer objects alive). ``first``: the answer of the
    candidate pending at ``state.search``, tried again already (`retry`)."""
    state.pending = state.put_off = False
    finder: _Finder | None = None  # built for a long text only
    n = len(text)
    while True:
        if state.close is not None:
            done = _opaque(text, state, eof)
            if done is None:
                continue
            if done.span is not None:
                yield done.span
            if done.more:
                continue
            return
        search = state.search
        if first is not None:
            i, res, first = search, first, None
        else:
            if n - search <= _SHORT:  # the stream's usual look: a short tail (the pattern's
                m = _CANDIDATE_SEARCH(text, search)  # own search: faster than a find per marker)
            else:
                if finder is None:
                    finder = _Finder(text)
                m = finder.next_candidate(search)
            if m is None:
                search = state.search = n if eof else _held_from(text, search)
                pos = state.pos
                if search > pos:
                    state.pos = search
                    yield TextSpan(pos, search)
                return
            i = m.start()
            if i in state.skip:
                state.search = i + 1
                continue
            token = m.group()
            if not eof and n - i <= _DEFER and token in "{[" and _put_off(text, i, state):
                res = PENDING  # its first try is put off to the next look
                state.put_off = True
            else:
                res = match_at(text, i, token, eof)
        pos = state.pos
        if res is PENDING:
            state.search, state.pending = i, True
            if i > pos:
                state.pos = i
                yield TextSpan(pos, i)
            return
        if isinstance(res, Found):
            if i > pos:
                state.pos = i
                yield TextSpan(pos, i)
            yield from res.snippets
            state.pos = state.search = res.end
        elif isinstance(res, NoMatch):
            state.skip.update(res.skip)
            state.search = max(i + 1, res.resume)
        elif isinstance(res, Opaque):
            state.close, state.fence, state.search = res.close, res.fence, res.search_from
            state.line = res.line


def retry(text: str, state: ScanState) -> Match | None:
    """Streaming: the answer of the candidate pending at ``state.search``, tried again over
    ``text`` (which extends the text it was found in) as `scan_items` would try it first;
    None where the candidate pattern no longer matches there (its end of text looked
    ahead: the scan decides). Still PENDING: ``state`` is as the scan would leave it."""
    i = state.search
    m = _CANDIDATE.match(text, i)
    if m is None:
        return None
    token = m.group()
    state.put_off = len(text) - i <= _DEFER and token in "{[" and _put_off(text, i, state)
    return PENDING if state.put_off else match_at(text, i, token, False)


def free_until(text: str, state: ScanState) -> int:
    """Streaming, outside regions, nothing pending: where a scan of ``text`` would release
    it up to without trying a candidate, or -1 (a look is needed). With no candidate at or
    after ``state.search`` (a short tail: see `scan_items`): its end, or a tail that may
    still start one (`_HOLD`). With a first candidate whose try `scan_items` puts off
    (`_put_off`): that candidate's start, ``state`` then pending there as the scan leaves it.
    With another first candidate, the scan's search starts at it (no other before it)."""
    search = state.search
    if len(text) - search > _SHORT:
        return -1
    m = _CANDIDATE_SEARCH(text, search)
    if m is None:
        return _held_from(text, search)
    i = state.search = m.start()
    if len(text) - i > _DEFER or m.group() not in "{[" or i in state.skip:
        return -1
    if not _put_off(text, i, state):
        return -1
    state.pending = state.put_off = True
    return i


def _held_from(text: str, search: int) -> int:
    """Where the tail of ``text`` that may still become a candidate starts (`_HOLD`, at or
    after ``search``), else its end. The pattern runs only where the last character but
    whitespace may end such a tail (a regex call costs more than these tests)."""
    last = text[-1:]
    if last.isspace():
        last = text.rstrip()[-1:]
    if last and last not in _HOLD_LAST and not last.isalnum():
        return len(text)
    hold = _HOLD_SEARCH(text, search)
    return len(text) if hold is None else hold.start()


def _put_off(text: str, i: int, state: ScanState) -> bool:
    """Is the try of the bare candidate at ``text[i]`` put off (`_DEFER`)? Yes if it was not
    put off already and no closing bracket follows it outside (double-quoted) strings: it
    cannot end in ``text``, so a try could only say "wait" or "no"."""
    if i == state.deferred:
        return False
    state.deferred = i
    tail = text[i:]
    if "}" not in tail and "]" not in tail:
        return True
    if '"' not in tail:
        return False
    tail = _STRINGS.sub("", tail)
    return "}" not in tail and "]" not in tail


@dataclass(slots=True)  # not frozen (speed): see regions.py
class _OpaqueStep:
    span: TextSpan | None
    more: bool
    """False: more text is needed."""


def _opaque(text: str, state: ScanState, eof: bool) -> _OpaqueStep | None:
    """Inside an opaque region: release its text (None when there is none to release and
    the scan goes on)."""
    close, n = state.close, len(text)
    assert close is not None
    if state.line is not None:
        return _fence_body(text, state, eof)
    at = text.find(close, state.search)
    if at < 0:
        if eof:
            span = _release(state, n)
            state.close, state.search = None, n
            return _OpaqueStep(span, more=False)
        state.search = max(state.search, n - len(close) + 1)
        return _OpaqueStep(_release(state, state.search), more=False)
    end = at + len(close)
    while state.fence and end < n and text[end] == close[0]:
        end += 1
    if end == n and state.fence and not eof:
        state.search = at
        return _OpaqueStep(_release(state, at), more=False)
    span = _release(state, end)
    state.close, state.search = None, end
    return None if span is None else _OpaqueStep(span, more=True)


def _fence_body(text: str, state: ScanState, eof: bool) -> _OpaqueStep | None:
    """Inside a code fence: release up to its closing fence line (inclusive) or, while
    streaming, up to the start of the last line (it may still become the closing line)."""
    assert state.line is not None
    assert state.close is not None
    n = len(text)
    m = state.line.search(text, state.search)
    if m is not None and (eof or m.end() < n):
        span = _release(state, m.end())
        state.close, state.line, state.search = None, None, m.end()
        return None if span is None else _OpaqueStep(span, more=True)
    if eof:
        span = _release(state, n)
        state.close, state.line, state.search = None, None, n
        return _OpaqueStep(span, more=False)
    last_line = text.rfind("\n", state.search, n) + 1
    if last_line == 0:  # no newline since the last look: the current line goes on
        last_line = state.search
    at_line_start = last_line == 0 or text[last_line - 1] == "\n"
    closer_chars = " \t\r" + state.close[0]
    could_close = at_line_start and not text[last_line:n].strip(closer_chars)
    state.search = max(state.search, last_line if could_close else n)
    return _OpaqueStep(_release(state, state.search), more=False)


def scan_reply(text: str) -> list[Item]:
    """The whole reply as text spans and snippets, in order, tiling it exactly."""
    return scan(text, ScanState(), eof=True)


def find_snippets(text: str) -> list[Snippet]:
    """Every JSON value of the reply (the snippet layer), in order."""
    return [item for item in scan_reply(text) if isinstance(item, Snippet)]
