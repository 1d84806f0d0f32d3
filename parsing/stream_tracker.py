"""The streaming parser's watch over a pending candidate (`stream.StreamParser`): while one is
undecided, each new chunk is read once by a small string-aware bracket tracker, and a look at
the candidate comes when it sees something that may close it (see the module docstring of
`parsing.stream` for when)."""

from __future__ import annotations

import re

_BLANK_OR_FENCE = " \t`~"
_FENCE_LINE = re.compile(r"\n[ \t]{0,3}[`~]")
"""A fence character at the start of a line: a closing fence may begin there."""
_BRACKET = re.compile(r"[{}\[\]]")
_CLOSED = re.compile(r'"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+"')
"""A complete string (cut out of a chunk: what is left is outside strings, in order)."""


class Tracker:
    """Watches appended text for a possible end of the pending snippet. (It runs at every
    delta of a pending candidate: str methods, not regular expressions, where they answer
    alike; a regex call costs ~10 ``in`` tests here.)"""

    __slots__ = ("depth", "escaped", "in_string", "line_fence", "line_open")

    def __init__(self) -> None:
        self.in_string = False
        self.escaped = False
        self.depth = 0
        self.line_open = False  # the current line so far holds only blanks and fence characters
        self.line_fence = False  # ... and at least one fence character

    def feed(self, chunk: str) -> bool:
        """Scan ``chunk``; True if something outside a string may close the candidate.
        Its complete strings are cut out at C speed (`_cut_strings`), and what is left
        before a string still open at its end is tracked in one piece (`_outside`)."""
        line_open = self.line_open
        if self.in_string or '"' in chunk:
            outside = self._cut_strings(chunk)
            hit = self._outside(outside, line_open) if outside else False
        else:  # the commonest: no string here
            hit = self._outside(chunk, line_open)
        if not self.line_fence and "`" not in chunk and "~" not in chunk:
            # no fence character: only whether the last line so far is blank counts
            last = chunk.rfind("\n")
            if last >= 0:
                self.line_open = not chunk[last + 1 :].strip(" \t")
            elif line_open:
                self.line_open = not chunk.strip(" \t")
            return hit
        first = chunk.find("\n")
        if first < 0:
            if line_open:
                line_open = self.line_open = not chunk.strip(_BLANK_OR_FENCE)
                self.line_fence = line_open and (self.line_fence or _has_fence_char(chunk))
            return hit
        if line_open and not chunk[:first].strip(_BLANK_OR_FENCE):
            # the newline ending a line of fence characters (a closing fence line, its
            # characters split across deltas) may end the region
            hit = hit or self.line_fence or _has_fence_char(chunk[:first])
        tail = chunk[chunk.rfind("\n") + 1 :]
        line_open = self.line_open = not tail.strip(_BLANK_OR_FENCE)
        self.line_fence = line_open and _has_fence_char(tail)
        return hit

    def _cut_strings(self, chunk: str) -> str:
        """What of ``chunk`` lies outside strings, up to a string left open at its end (the
        string state is updated). A string left open by the last chunk is read as if its
        quote (and escaping backslash) came again first. Without a backslash, quotes alone
        decide (``split``); else a regular expression reads the escapes."""
        if self.in_string:
            if '"' not in chunk:  # the string goes on: only a run of backslashes at its end counts
                run = len(chunk) - len(chunk.rstrip("\\"))
                self.escaped = (run + self.escaped if run == len(chunk) else run) % 2 == 1
                return ""
            chunk = ('"\\' if self.escaped else '"') + chunk
            self.escaped = False
        if "\\" not in chunk:
            parts = chunk.split('"')  # outside, string, outside, ...
            self.in_string = len(parts) % 2 == 0  # an odd number of quotes: one goes on
            return "".join(parts[::2]) if len(parts) > 2 else parts[0]
        outside = _CLOSED.sub("", chunk)
        quote = outside.find('"')
        if quote < 0:
            self.in_string = False
            return outside
        self.in_string = True  # a string opened here goes on in the next chunk
        run = len(chunk) - len(chunk.rstrip("\\"))
        self.escaped = run % 2 == 1 and len(outside) - quote > run
        return outside[:quote]

    def _outside(self, chunk: str, line_open: bool) -> bool:
        """``chunk`` lies outside strings: track its brackets. A tag character (``<``,
        ``>``) may always close the candidate; a fence character only where no bracket is
        open (a region's closing marker after its JSON value) or at the start of a line (a
        closing fence line; ``line_open``: the chunk's line so far holds only blanks and
        fence characters). Inside an open value, mid-line, it is text (``{~~~json``): the
        growth rules of `StreamParser.feed` bound the delay."""
        if len(chunk) == 1:  # as between the strings of {"a":"b"}
            if chunk in "{[":
                self.depth += 1
                return False
            if chunk in "}]":
                self.depth -= 1
                return self.depth == 0
            if chunk in "<>":
                return True
            return chunk in "`~" and (self.depth <= 0 or line_open)
        # only the closer that brings the depth down to 0 may end the candidate: past it
        # (mismatched closers) every later closer would trigger a costly look, and the
        # doubling rule of `StreamParser.feed` bounds the delay anyway
        before = depth = self.depth
        reaches = False
        opens = "{" in chunk or "[" in chunk
        if not ("}" in chunk or "]" in chunk):  # only openers, or none, at C speed
            if opens:
                depth += chunk.count("{") + chunk.count("[")
        elif not opens:  # only closers
            closes = chunk.count("}") + chunk.count("]")
            reaches = depth >= 1 and depth - closes <= 0
            depth -= closes
        else:
            opened = chunk.count("{") + chunk.count("[")
            closes = chunk.count("}") + chunk.count("]")
            if depth - closes > 0 or depth + opened < 1:  # no closer can bring it to 0
                depth += opened - closes
            else:
                for c in _BRACKET.findall(chunk):  # (strings: no match object per bracket)
                    if c in "{[":
                        depth += 1
                    else:
                        depth -= 1
                        reaches = reaches or depth == 0
        self.depth = depth
        if reaches:
            return True
        return self._marker_closes(chunk, before, line_open)

    def _marker_closes(self, chunk: str, before: int, line_open: bool) -> bool:
        """May a fence or tag character of ``chunk`` close the candidate (see `_outside`;
        ``before``: the depth at its start)?"""
        tag = "<" in chunk or ">" in chunk
        if not tag and not _has_fence_char(chunk):
            return False
        if tag or before <= 0 or self.depth <= 0:
            return True
        if "\n" in chunk and _FENCE_LINE.search(chunk):
            return True
        return line_open and chunk.lstrip(" \t")[:1] in ("`", "~")


_FRESH: dict[str, tuple[int, bool, bool, bool, bool]] = {}
"""What a new tracker is after reading a short candidate's text, by text (`fresh_tracker`)."""
_FRESH_TEXT = 48
_FRESH_MAX = 1024


def fresh_tracker(text: str) -> Tracker:
    """A new tracker that has read ``text``, a new candidate's text so far. The same short
    texts come again and again (the openers a model repeats, ``{"`` and ```````json`` at a
    chunk's end): their states are memoized (a look at every 32 characters of a reply of
    openers fed each to a new tracker: ~10% of its streaming)."""
    tracker = Tracker()
    if len(text) > _FRESH_TEXT:
        tracker.feed(text)
        return tracker
    state = _FRESH.get(text)
    if state is not None:
        t = tracker
        t.depth, t.in_string, t.escaped, t.line_open, t.line_fence = state
        return tracker
    tracker.feed(text)
    if len(_FRESH) >= _FRESH_MAX:
        _FRESH.clear()
    t = tracker
    _FRESH[text] = (t.depth, t.in_string, t.escaped, t.line_open, t.line_fence)
    return tracker


def _has_fence_char(text: str) -> bool:
    return "`" in text or "~" in text
