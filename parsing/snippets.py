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
from dataclasses import dataclass, field

from parsing.fences import match_fence_at, match_reasoning_at
from parsing.json_snippets import match_bare_at
from parsing.regions import PENDING, Found, Match, NoMatch, Opaque, Snippet
from parsing.xml_snippets import match_tool_tag_at

_CANDIDATE = re.compile(
    r"<(?:think|thinking|reasoning|tool_call|tool_use)>"
    r"|`{3,}|~{3,}"
    r"|\{(?=\s*(?:[\"'}]|[A-Za-z_$][\w$.-]*\s*:))"
    r"|(?<![\w\])])\[(?=\s*[-\d\"'{\[\]tfnTFN])"
)
_MARKER_CHARS = "<`~{["
_HOLD = re.compile(r"(?:[{\[]\s*|<[A-Za-z_]{0,12}|`{1,2}|~{1,2})\Z")


@dataclass(frozen=True, slots=True)
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
    skip: set[int] = field(default_factory=set)
    pending: bool = False
    """The last scan stopped at an undecided candidate at ``search``."""

    def shift(self, delta: int) -> None:
        """Re-base every index by ``-delta`` (the stream dropped released text)."""
        self.pos -= delta
        self.search -= delta
        self.skip = {p - delta for p in self.skip if p >= delta}


class _Finder:
    """Next candidate at or after a position: ``str.find`` per marker character (memchr
    speed, each result cached until passed), then the full candidate pattern there."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.next_at = dict.fromkeys(_MARKER_CHARS, -1)

    def next_candidate(self, pos: int) -> re.Match[str] | None:
        text, next_at = self.text, self.next_at
        misses = 0
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


def _release(items: list[Item], state: ScanState, upto: int) -> None:
    if upto > state.pos:
        items.append(TextSpan(state.pos, upto))
        state.pos = upto


def scan(text: str, state: ScanState, eof: bool) -> list[Item]:
    """Advance ``state`` over ``text`` and return the items released (see the docstring)."""
    items: list[Item] = []
    state.pending = False
    finder = _Finder(text)
    while True:
        if state.close is not None:
            if not _opaque(text, state, eof, items):
                return items
            continue
        m = finder.next_candidate(state.search)
        if m is None:
            hold = None if eof else _HOLD.search(text, state.search)
            state.search = len(text) if hold is None else hold.start()
            _release(items, state, state.search)
            return items
        i = m.start()
        if i in state.skip:
            state.search = i + 1
            continue
        res = match_at(text, i, m.group(), eof)
        if res is PENDING:
            _release(items, state, i)
            state.search, state.pending = i, True
            return items
        if isinstance(res, NoMatch):
            state.skip.update(res.skip)
            state.search = max(i + 1, res.resume)
        elif isinstance(res, Opaque):
            state.close, state.fence, state.search = res.close, res.fence, res.search_from
        elif isinstance(res, Found):
            _release(items, state, i)
            items.extend(res.snippets)
            state.pos = state.search = res.end


def _opaque(text: str, state: ScanState, eof: bool, items: list[Item]) -> bool:
    """Inside an opaque region: release its text; False when more text is needed."""
    close, n = state.close, len(text)
    assert close is not None
    at = text.find(close, state.search)
    if at < 0:
        if eof:
            _release(items, state, n)
            state.close, state.search = None, n
            return False
        state.search = max(state.search, n - len(close) + 1)
        _release(items, state, state.search)
        return False
    end = at + len(close)
    while state.fence and end < n and text[end] == close[0]:
        end += 1
    if end == n and state.fence and not eof:
        state.search = at
        _release(items, state, at)
        return False
    _release(items, state, end)
    state.close, state.search = None, end
    return True


def scan_reply(text: str) -> list[Item]:
    """The whole reply as text spans and snippets, in order, tiling it exactly."""
    return scan(text, ScanState(), eof=True)


def find_snippets(text: str) -> list[Snippet]:
    """Every JSON value of the reply (the snippet layer), in order."""
    return [item for item in scan_reply(text) if isinstance(item, Snippet)]
