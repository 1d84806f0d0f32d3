"""Our own tolerant JSON decoder: the repairs that keep every character (SPEC §3).

Runs after a strict parse failed. It decodes one outermost object or array starting at a
given index and fixes, in one linear pass driven by regular expressions:

- lossless, one right answer: trailing commas, ``//`` and ``/* */`` comments, Python
  literals ``True/False/None``, raw newlines/tabs/control characters inside strings,
  unknown escapes kept literally, a missing comma between an object's members;
- cut-off input: at the end of the text (or of the fence / tag region) every open string,
  array and object is closed and the result is flagged ``truncated``;
- single right answer by context (flagged ``repaired``): a ``"`` inside a string that
  cannot end it (it is not followed by ``,`` ``}`` ``]`` ``:`` in a position that makes
  sense) is kept as a character; single-quoted strings; unquoted keys; an unquoted object
  value (``{text: words}``); a closer run that does not match the open brackets
  (``["Mrs."},`` or ``}]}`` for ``]}}``); a string missing its closing quote when the line
  ends with a closer and the string would otherwise run to the end of the text.

Nothing here ever drops a character of a string value, except an escape cut in half at the
very end of a truncated text. Anything else (``{x}`` in prose, Java code) is `Rejected`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from parsing.json.rules import (
    _CLOSER,
    _IDENT_KEY,
    _IDENT_PARTIAL,
    _LITERAL,
    _LITERALS,
    _NUMBER,
    _OPENER,
    _RUN_CHARS,
    _UNQUOTED_STOP,
    _depth,
    _number,
    _resolve_continuing,
)
from parsing.json.scan import (
    WS_COMMENTS,
    NeedMore,
    Source,
)
from parsing.json.strict import WINDOW, strict_value
from parsing.json.tolerant_strings import StringReader, _Cut, _Frame, _Reject, _TooDeep
from parsing.resume import active as active_resumes
from parsing.resume import keep_stopped, take_stopped

MAX_DEPTH: Final = 200
"""Deeper nesting is not decoded (the region is left as text)."""

_SCALAR_TAIL = re.compile(r"[\w.+-]++\Z")
"""A literal or number still streaming in ("Tr", "1.")."""

# parser states
_KEY, _COLON, _VALUE, _AFTER = range(4)  # order of `_Parser.run`'s steps


@dataclass(slots=True)  # not frozen (speed): see regions.py
class Decoded:
    """A decoded value and the half-open index range ``[start, end)`` it was read from."""

    value: Any
    start: int
    end: int
    repaired: bool
    truncated: bool
    fixes: frozenset[str] = frozenset()


@dataclass(slots=True)  # not frozen (speed): see regions.py
class Rejected:
    """Not decodable at ``start``: failed at ``pos`` with brackets open at ``open_starts``."""

    start: int
    pos: int
    open_starts: tuple[int, ...] = ()
    too_deep: bool = False


def parse_tolerant(
    text: str,
    start: int,
    *,
    eof: bool = True,
    marker: str | None = None,
    code_in_values: bool = False,
    strict_reads: bool = True,
) -> Decoded | Rejected:
    """Decode the object/array at ``text[start]`` tolerantly (see the module docstring).

    ``marker`` ends the region (a closing fence or tag) when met outside a string; ``eof``
    False means more text may come: raises `NeedMore` when the outcome depends on it.
    ``code_in_values``: in an object value holding several lines (a ``\\n`` escape follows on
    its line: file contents with unescaped quotes), a quote followed by ``:`` is a character
    (``{"c": None}`` in code); used where the region's extent is known, after the default
    reading failed. ``strict_reads`` False: no C-speed reads of strictly valid stretches,
    every token read by the rules below (the reference the fast reading must equal).

    While a stream looks at a pending candidate (`resume.active`), a reading that needed
    more text is resumed where it stopped, and a finished one is reused (see `resume`);
    else (outside a look, or a look's first at it), a streamed reading resumes the last one
    stopped (`resume.take_stopped`).
    """
    resumes = None if code_in_values else active_resumes()
    src, key = Source(text, eof, marker), (start, marker)
    if resumes is None and (eof or code_in_values):
        return _parse(src, _Parser(src, start, {}, code_in_values, strict_reads))
    if resumes is None:
        parser: _Parser | None = take_stopped(text, key)  # (a streamed try, no store active)
    else:
        done: Decoded | Rejected | None = resumes.finished.get(key)
        if done is not None:
            return done
        parser = resumes.suspended.pop(key, None) or take_stopped(text, key)
    if parser is None or parser.strict_reads != strict_reads:
        parser = _Parser(src, start, {}, code_in_values, strict_reads)
    else:
        parser.resume_over(src)
    try:
        result = _parse(src, parser)
    except NeedMore:
        if parser.cuts:  # (a cut was retried: not the first reading)
            raise
        if resumes is None:
            keep_stopped(text, key, parser)
        else:
            resumes.suspended[key] = parser
        raise
    if resumes is not None and not eof:
        resumes.finished[key] = result  # decided without a character past the end: final
    return result


def _parse(src: Source, first: _Parser) -> Decoded | Rejected:
    """`parse_tolerant`'s readings, from the ``first`` (maybe a resumed one)."""
    cuts, start = first.cuts, first.start
    last_cut: int | None = None
    parser: _Parser | None = first
    for _attempt in range(4):
        if parser is None:
            parser = type(first)(src, start, cuts, first.code_in_values, first.strict_reads)
        try:
            return parser.run()
        except _Cut as cut:
            cuts[cut.string_start] = cut.pos
            last_cut = cut.string_start
        except _Reject as rej:
            if last_cut is None or cuts[last_cut] < 0:
                opened = tuple([f.start for f in parser.stack])
                return Rejected(start, rej.args[0], opened, isinstance(rej, _TooDeep))
            cuts[last_cut] = -1  # the missing-quote reading failed: read it as cut off
        parser = None
    return Rejected(start, start)


@dataclass(slots=True)
class _Parser(StringReader):
    """The grammar's state machine: containers, states and closer runs (the strings it
    reads: `StringReader`)."""

    src: Source
    start: int
    cuts: dict[int, int]
    code_in_values: bool = False
    strict_reads: bool = True
    stack: list[_Frame] = field(default_factory=list)
    _next_escape: int = -1
    _next_newline: int = -1
    fixes: set[str] = field(default_factory=set)
    result: Decoded | None = None
    _far: int = -1
    """Furthest index where a strict read of a container failed (see `_strict_container`)."""
    _rescan: int = 0
    """Characters strictly re-read before `_far` so far (bounded: linear cost)."""
    at: tuple[int, int] | None = None
    """Where a reading stopped by `NeedMore` resumes: (index, state) before its last step."""
    _tail: int = 0
    """Where a string body goes on after `_kept_quotes` kept every quote up to the end."""
    string_at: tuple[int, int, list[str], int, bool, bool] | None = None
    """The string a reading stopped in: (its quote, where its body resumes, the raw
    segments kept so far, and the reading's mode there: dense count, strict, fast)."""
    cut_off: tuple[int, str | None] = (0, None)
    """Where the text ended inside a string, and that string's value (None for a key)."""

    def resume_over(self, src: Source) -> None:
        """Go on over ``src``, a longer text that extends the one this reading stopped in
        (every step before the stop decided from characters ``src`` holds unchanged; the
        bookkeeping of failed strict reads, which only saves work, starts afresh)."""
        self.src = src
        self._next_escape = self._next_newline = -1
        self._far, self._rescan = -1, 0

    def run(self) -> Decoded:
        src = self.src
        text, n, marker = src.text, src.n, src.marker
        first = marker[0] if marker else ""
        skip = WS_COMMENTS.match
        steps = (self._key, self._colon, self._value, self._after)  # indexed by state
        if self.at is None:
            state = self._open(self.start)
            i = self.start + 1
        else:
            i, state = self.at
        try:
            while self.result is None:
                if i < n and " " < text[i] < "\x85" and text[i] != "/":
                    j = i  # nothing to skip (as in Source.skip_ws): no regex call
                else:
                    j = skip(text, i).end()  # type: ignore[union-attr]
                    if j > i and text.find("/", i, j) >= 0:
                        self.fixes.add("comment")
                if j == n - 1 and text[j] == "/" and not src.eof:
                    raise NeedMore  # a comment may be starting ("//" or "/*")
                if (j >= n or text[j] == first) and src.ended(j):
                    return self._truncate(j)
                i, state = steps[state](j)
        except NeedMore:
            # resumed before the skip (a comment at the end may go on); no step changes the
            # stack before it may raise
            self.at = (i, state)
            raise
        return self.result

    # -- containers -------------------------------------------------------------------------
    def _open(self, i: int) -> int:
        if len(self.stack) >= MAX_DEPTH:
            raise _TooDeep(i)
        kind = self.src.text[i]
        self.stack.append(_Frame(kind, i, {} if kind == "{" else []))
        return _KEY if kind == "{" else _VALUE

    def _add(self, value: Any) -> int:
        top = self.stack[-1]
        if top.kind == "{":
            top.container[top.key] = value
            top.key = None
        else:
            top.container.append(value)
        top.after_comma = False
        return _AFTER

    def _pop(self, end: int) -> int:
        frame = self.stack.pop()
        if not self.stack:
            self._finish(frame.container, end, truncated=False)
            return _AFTER
        return self._add(frame.container)

    def _finish(self, value: Any, end: int, truncated: bool) -> None:
        if truncated:
            self.fixes.add("truncated")
        fixes = frozenset(self.fixes)
        self.result = Decoded(value, self.start, end, bool(fixes), truncated, fixes)

    def _truncate(self, end: int, partial: str | None = None) -> Decoded:
        """Close everything at ``end`` (input cut off); ``partial``: a cut-off string value."""
        if partial is not None:
            self._add(partial)
        while self.stack:
            frame = self.stack.pop()
            if self.stack:
                self._add(frame.container)
            else:
                self._finish(frame.container, end, truncated=True)
        assert self.result is not None
        return self.result

    # -- states -----------------------------------------------------------------------------
    def _value(self, i: int) -> tuple[int, int]:
        text, top = self.src.text, self.stack[-1]
        c = text[i]
        if c in "{[":
            end = self._strict_container(i) if self.strict_reads else -1
            return (end, _AFTER) if end >= 0 else (i + 1, self._open(i))
        if c in "}]":
            if top.kind == "[" and c == "]":
                if not (top.after_comma or not top.container):
                    raise _Reject(i)
                if top.after_comma:
                    self.fixes.add("trailing_comma")
                return i + 1, self._pop(i + 1)
            if top.kind == "[":
                return self._closers(i)
            raise _Reject(i)
        if c in "\"'":
            value, j = self._string(i, "o" if top.kind == "{" else "a")
            if j < 0:  # the text ends inside it
                self._truncate(*self.cut_off)
                return i, _AFTER
            return j, self._add(value)
        return self._scalar(i)

    def _scalar(self, i: int) -> tuple[int, int]:
        src, text = self.src, self.src.text
        for pattern in (_NUMBER, _LITERAL):
            m = pattern.match(text, i)
            if m is None:
                continue
            src.at_end(m.end())
            if src.peek(m.end()) in ("", ",", "}", "]", '"'):
                token = m.group()
                if token in ("True", "False", "None"):
                    self.fixes.add("python_literal")
                value = _LITERALS[token] if pattern is _LITERAL else _number(token)
                return m.end(), self._add(value)
        if self.stack[-1].kind != "{":
            if _SCALAR_TAIL.match(text, i) is not None:
                src.at_end(src.n)  # a literal or number cut off at the end ("Tr", "1.")
            raise _Reject(i)
        return self._unquoted_value(i)

    def _unquoted_value(self, i: int) -> tuple[int, int]:
        src, text, depth, j = self.src, self.src.text, 0, i
        while True:
            m = _UNQUOTED_STOP.search(text, j)
            if m is None:
                src.at_end(src.n)
                j = src.n
                break
            j, ch = m.start(), m.group()
            if ch in "{[":
                depth += 1
            elif ch in "}]" and depth:
                depth -= 1
            elif ch in "}],\n" or src.marker_at(j):
                break
            j += 1
        value = text[i:j].strip()
        if not value or depth:
            raise _Reject(i)
        self.fixes.add("unquoted_value")
        return j, self._add(value)

    def _key(self, i: int) -> tuple[int, int]:
        text, top = self.src.text, self.stack[-1]
        c = text[i]
        if c == "}":
            if top.after_comma:
                self.fixes.add("trailing_comma")
            return i + 1, self._pop(i + 1)
        if c == "]":
            return self._closers(i)
        if c in "\"'":
            key, j = self._string(i, "k")
            if j < 0:  # the text ends inside it
                self._truncate(*self.cut_off)
                return i, _AFTER
            top.key = key
            return j, _COLON
        m = _IDENT_KEY.match(text, i)
        if m is None:
            if _IDENT_PARTIAL.fullmatch(text, i):
                self.src.at_end(self.src.n)
            raise _Reject(i)
        self.fixes.add("unquoted_key")
        top.key = m.group()
        return m.end(), _COLON

    def _colon(self, i: int) -> tuple[int, int]:
        if self.src.text[i] != ":":
            raise _Reject(i)
        return i + 1, _VALUE

    def _after(self, i: int) -> tuple[int, int]:
        text, top = self.src.text, self.stack[-1]
        c = text[i]
        if c == ",":
            top.after_comma = True
            return i + 1, _KEY if top.kind == "{" else _VALUE
        if c == _CLOSER[top.kind]:
            return i + 1, self._pop(i + 1)
        if c in "}]":
            return self._closers(i)
        if top.kind == "{" and c in "\"'" and self._key_ahead(i):
            self.fixes.add("missing_comma")
            return i, _KEY
        raise _Reject(i)

    # -- heuristics -------------------------------------------------------------------------
    def _closers(self, i: int) -> tuple[int, int]:
        """A run of closers that does not match the open brackets (see `_resolve_continuing`)."""
        src, text = self.src, self.src.text
        run: list[str] = []
        j, last = i, i
        while not src.ended(j) and text[j] in "}]":
            run.append(text[j])
            last = j + 1
            j = src.skip_ws(j + 1)
        self.fixes.add("mismatched_closers")
        kinds = [f.kind for f in self.stack]
        if not src.ended(j) and text[j] == ",":
            keep = _resolve_continuing(kinds, run, src.peek(j + 1))
            if keep is None:
                raise _Reject(i)
            while len(self.stack) > keep:
                self._pop(last)
            return last, _AFTER
        root_closed = _CLOSER[kinds[0]] == run[-1]
        while len(self.stack) > 1:
            self._pop(last)
        frame = self.stack.pop()
        self._finish(frame.container, last, truncated=not root_closed)
        return last, _AFTER

    def _strict_container(self, i: int) -> int:
        """The container at ``i`` read at C speed when it is strictly valid JSON and this
        parser provably reads it the same: its end (the value is added), else -1.

        Inside a strictly valid value every decision of this parser looks only at text
        inside the value and answers as the strict reading, except one: the quote ending the
        value's last string, when only closers follow it up to the value's end, is judged by
        the whole closer run and what follows it (`_closer_run_fits`, with the brackets open
        there). That decision is taken here. A cut-off retry (`cuts`) inside the value, or
        nesting past `MAX_DEPTH`, leaves the value to the slow path. A failed strict read
        before `_far` re-reads text already read: those re-reads are bounded by twice the
        distance to `_far`, so a parse costs linear time whatever the nesting."""
        far = self._far
        if i < far and self._rescan + (far - i) > 2 * (far - self.start) + WINDOW:
            return -1
        text = self.src.text
        read = strict_value(text, i)
        if isinstance(read, int):
            if i < far:
                self._rescan += max(read, far) - i
            # nothing learnt (too deep, NaN...): no more strict reads in this parse
            self._far = self.src.n if read <= i else max(far, read)
            if read <= i:
                self._rescan = 1 << 62
            return -1
        value, end = read
        if self.cuts and any(i <= cut < end for cut in self.cuts):
            return -1
        depth = len(self.stack)  # (a count of brackets bounds the depth at C speed)
        bound = depth + text.count("{", i, end) + text.count("[", i, end)
        if bound > MAX_DEPTH and depth + _depth(value) > MAX_DEPTH:
            return -1
        if not self._last_quote_ends(i, end):
            return -1
        self._add(value)
        return end

    def _last_quote_ends(self, i: int, end: int) -> bool:
        """For a strictly valid container ``text[i:end]``: does the slow path end its last
        string where the strict reading does (see `_strict_container`)?"""
        text = self.src.text
        b = end - 1
        while b > i and text[b - 1] in _RUN_CHARS:
            b -= 1
        if text[b - 1] != '"':
            return True  # no string right before the final closers
        inner = [_OPENER[c] for c in reversed(text[b:end]) if c in _OPENER]
        kinds = [f.kind for f in self.stack] + inner
        return self._closer_run_fits(self.src.skip_ws(b, comments=True), kinds)


__all__ = ["MAX_DEPTH", "Decoded", "NeedMore", "Rejected", "parse_tolerant"]
