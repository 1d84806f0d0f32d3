"""Inner quotes at C speed: a document whose only flaw is quotes inside string values that the
tolerant pass keeps as characters (``"Next "big" file"``) is read by strict JSON once those
quotes are escaped, instead of token by token.

The strict decoder fails right after such a quote (the string seemed to end there). The
quote is escaped, and the document decoded again, only where the tolerant pass surely keeps
it, whatever brackets are open (`_kept`):

- after a value (``Expecting ',' delimiter``): `_Parser._quote_ends` keeps it in an object
  and in an array alike (a letter, ``)``, a comma then no key and no value follow it), and
  no closer follows it (whose reading depends on the open brackets);
- after a value and a comma, in an object (``Expecting property name``) or an array
  (``Expecting value``): `_Parser._quote_ends` keeps it, in that container.

The quotes after it in the same string that are kept so too are escaped with it (one
decoding for all). Anything else (a closer, a colon, a trailing comma, a cut-off text)
gives None and the caller goes on with the tolerant pass. When the escaped text decodes, the
tolerant pass reads the same value: every quote strict JSON ends a string at is followed by
strictly valid JSON (a comma then a key or a value, a colon after a key, closers that match
the open brackets), which the tolerant pass ends the string at too, but for the closer run
after the document's last string, which is checked as the tolerant pass checks it
(`_Parser._last_quote_ends`). Its fix is ``inner_quotes``; nesting past `MAX_DEPTH`, NaN and
Infinity are left to the tolerant pass.
"""

from __future__ import annotations

import json
import re
from typing import Final

from parsing.json.rules import (
    _NEVER_ENDS,
    _VALUE_RUNS,
    _VALUE_RUNS_ARRAY,
    _VALUE_RUNS_FLAT,
    _depth,
)
from parsing.json.scan import Source, split_at_quotes
from parsing.json.strict import STRICT, WINDOW
from parsing.json.tolerant import MAX_DEPTH, Decoded, Rejected, _Parser
from parsing.json.tolerant_strings import _Frame

MAX_ROUNDS: Final = 3
"""Strict decodings at most (each after a run of kept quotes escaped): denser quotes (code)
are left to the tolerant pass, which passes runs of them in one regex."""
_JSON_WS: Final = " \t\r\n"
_AFTER_VALUE = "Expecting ',' delimiter"
_AFTER_COMMA = frozenset({"Expecting property name enclosed in double quotes", "Expecting value"})
_BOTH = rf"(?={_NEVER_ENDS['o', False]})(?={_NEVER_ENDS['a', False]})"
_FREE_RUN = re.compile(rf'[^"\\]*+(?:(?:\\[\s\S]|"{_BOTH})[^"\\]*+)*+')
"""A string body up to its next quote that the tolerant pass may end it at, in an object or
in an array (the quotes passed over are kept in both, whatever brackets are open)."""


def escaped_quotes_at(
    text: str,
    i: int,
    error: tuple[int, str],
    marker: str | None = None,
    *,
    code_in_values: bool = False,
) -> Decoded | Rejected | None:
    """The object/array at ``text[i]`` (a complete text, ``eof``) read by strict JSON once the
    quotes the tolerant pass keeps are escaped (see the module docstring), or the tolerant
    pass's rejection at a value's quote followed by ``:``; None: left to the tolerant pass.
    ``error``: where and why the strict decoding of ``text[i:]`` failed; ``code_in_values``:
    as the tolerant pass's reading with code in values (`parse_tolerant`)."""
    return _Escaper(text, i, marker, code_in_values).read(error)


def escaped_region_at(
    text: str, i: int, error: tuple[int, str], close: str
) -> tuple[Decoded | Rejected | None, bool]:
    """`escaped_quotes_at` for a document of a fence or tag body ending at ``close``: when
    the default reading is rejected at a quote before ``:`` in a string holding lines, the
    reading with code in values (`parse_tolerant`'s ``code_in_values``) goes on from there
    (both take every decision before it alike). Returns the reading, and whether it is the
    one with code in values (the default reading was then rejected)."""
    escaper = _Escaper(text, i, close, False)
    reading = escaper.read(error)
    if isinstance(reading, Rejected) and escaper.code_at is not None:
        return escaper.read_code(), True
    return reading, False


_KEPT, _ENDS = 0, 1


class _Escaper:
    """One document's strict decodings, each after a run of kept quotes escaped."""

    __slots__ = ("code_at", "i", "opened_at", "parser", "runs", "shift", "string", "text")

    def __init__(self, text: str, i: int, marker: str | None, code_in_values: bool) -> None:
        self.text, self.i = text, i
        self.parser = _Parser(Source(text, True, marker), i, {}, code_in_values)
        self.runs: list[tuple[int, int, str]] = []  # (start, end, text between, escaped)
        self.shift = 0  # characters added by the escapes
        self.string = -1  # the string whose open brackets `parser.stack` holds: how many runs
        # lie before it (each run ends a string: the string read lies after all of them)
        self.opened_at = -1  # where that string opens
        self.code_at: tuple[int, int] | None = None
        """Where the default reading was rejected at a quote that the reading with code in
        values keeps: (the string's first quote kept, that quote)."""

    def read(self, error: tuple[int, str]) -> Decoded | Rejected | None:
        q = _after_quote(self.text, *error)
        decision = self._decide(q, q) if q >= 0 else None
        if decision != _KEPT:
            return decision if isinstance(decision, Rejected) else None
        return self._rounds(self._run(q, q))

    def read_code(self) -> Decoded | Rejected | None:
        """After `read` was rejected at `code_at`: the reading with code in values, which
        took every decision before it as the default reading, from there on."""
        assert self.code_at is not None
        q, k = self.code_at
        self.code_at = None
        self.parser.code_in_values = True
        return self._rounds(self._run(q, k))

    def _rounds(self, run: tuple[int, int, str] | Rejected | None) -> Decoded | Rejected | None:
        """Escape ``run``, decode, and so on while strict JSON fails at a kept quote."""
        text, i = self.text, self.i
        n, width = len(text), WINDOW
        while isinstance(run, tuple):
            self.runs.append(run)
            self.shift += len(run[2]) - (run[1] - run[0])
            while True:
                stop = min(n, i + width)
                body = _escaped(text, i, stop, self.runs)
                try:
                    value, end = STRICT.raw_decode(body)
                except json.JSONDecodeError as exc:
                    cut = exc.msg.startswith("Unterminated string") or exc.pos >= len(body) - 6
                    if stop < n and cut:
                        width *= 8
                        continue
                    error = (i + exc.pos - self.shift, exc.msg)
                    break
                except (ValueError, RecursionError):  # NaN, Infinity, an int past the limit
                    return None
                return _decoded(self.parser, text, i, end + i - self.shift, value)
            q = _after_quote(text, *error)
            decision = self._decide(q, q) if q >= 0 and len(self.runs) < MAX_ROUNDS else None
            if decision != _KEPT:
                return decision if isinstance(decision, Rejected) else None
            run = self._run(q, q)
        return run

    def _run(self, q: int, k: int) -> tuple[int, int, str] | Rejected | None:
        """``q`` and the quotes after it in its string that the tolerant pass keeps too
        (strict JSON would fail right after each: one decoding for all), the first of them
        from ``k`` on yet to be found: ``(q, end, text[q:end] with them escaped)``; the
        tolerant pass's rejection; None when the string runs on past `WINDOW` characters
        (left to the tolerant pass: this costs no more than a window)."""
        text = self.text
        run = self._value_run() if self.string == len(self.runs) else _FREE_RUN
        stop = min(len(text), q + WINDOW)
        while True:  # the quotes kept by the regex, then one by one
            k = run.match(text, k + 1, stop).end()  # type: ignore[union-attr]
            if k >= stop or text[k] != '"':
                return None
            decision = self._decide(k, q)
            if isinstance(decision, Rejected) or decision is None:
                return decision
            if decision == _ENDS:
                return q, k, '\\"' + '\\"'.join(split_at_quotes(text[q + 1 : k], '"'))
            if self.string == len(self.runs):  # the open brackets known: the exact regex
                run = self._value_run()

    def _value_run(self) -> re.Pattern[str]:
        """The tolerant pass's regex for the string read, with its open brackets known (it
        passes the quotes `_Parser._quote_ends` keeps there, see `_Parser._kept_quotes`)."""
        parser = self.parser
        stack = parser.stack
        ctx = "o" if stack[-1].kind == "{" else "a"
        code = parser.code_in_values and parser._holds_lines(self.opened_at)
        if len(stack) == 1 and ctx == "a":
            return _VALUE_RUNS_ARRAY['"', ctx, code]
        if all(frame.kind != "[" for frame in stack):
            return _VALUE_RUNS_FLAT['"', ctx, code]
        return _VALUE_RUNS['"', ctx, code]

    def _decide(self, k: int, q: int) -> int | Rejected | None:
        """Does the tolerant pass keep the quote at ``k`` of a value string (`_KEPT`), end
        the string there (`_ENDS`), or end it and reject the document (a ``:`` follows)?
        ``q``: the string's first quote kept, or ``k`` (strict JSON failed right after it).
        None: nested too deep."""
        parser, text = self.parser, self.text
        src = parser.src
        j = src.skip_ws(k + 1, comments=True)
        if src.ended(j):
            return _ENDS
        c = text[j]
        if c == "}" and k != q:  # strict JSON decides: it fails right there if the brace
            return _ENDS  # closes nothing (the next round decides then, knowing the brackets)
        if c not in "}]:":  # the open brackets do not matter, maybe the container does
            in_object, in_array = parser._quote_ends(k, "o"), parser._quote_ends(k, "a")
            if in_object == in_array:
                return _ENDS if in_object else _KEPT
        if not self._open_brackets(q):
            return None
        ctx = "o" if parser.stack[-1].kind == "{" else "a"
        lines = ctx == "o" and parser._holds_lines(self.opened_at)
        code = parser.code_in_values and lines
        if c == ":" and not code:  # the string ends, then the document is rejected there
            if lines:  # (the reading with code in values keeps the quote)
                self.code_at = (q, k)
            return Rejected(self.i, j, tuple(f.start for f in parser.stack), False)
        return _ENDS if parser._quote_ends(k, ctx, code) else _KEPT

    def _open_brackets(self, k: int) -> bool:
        """Put the brackets open around the string that strict JSON ended at ``k`` on the
        parser's stack, as the tolerant pass has them there (False: nested deeper than it
        reads)."""
        if self.string == len(self.runs):
            return True
        text, i = self.text, self.i
        prefix = _escaped(text, i, k, self.runs)  # strictly valid JSON, then the string
        opened: list[tuple[str, int]] = []
        pos = 0
        while True:  # one step per bracket (strings and the rest passed at C speed)
            m = _TO_BRACKET.match(prefix, pos)
            if m is None:
                break
            pos = m.end()
            if m.group(1) in "[{":
                if len(opened) >= MAX_DEPTH:
                    return False
                opened.append((m.group(1), self._at(pos - 1)))
            elif opened:
                opened.pop()
        last = _TO_OPEN.match(prefix, pos).end()  # type: ignore[union-attr]
        if not opened or prefix[last : last + 1] != '"':
            return False
        self.parser.stack = [_Frame(kind, at, {} if kind == "{" else []) for kind, at in opened]
        self.string = len(self.runs)
        self.opened_at = self._at(last)
        return True

    def _at(self, p: int) -> int:
        """The index in ``text`` of the character at ``p`` of the escaped text (outside the
        runs)."""
        at, shift = self.i + p, 0
        for start, end, escaped in self.runs:
            if start - self.i + shift >= p:
                break
            shift += len(escaped) - (end - start)
        return at - shift


_TO_OPEN = re.compile(r'(?:[^"\[\]{}]++|"(?:[^"\\]++|\\[\s\S])*+")*+')
"""Strictly valid JSON up to its next bracket or to a string left open."""
_TO_BRACKET = re.compile(_TO_OPEN.pattern + r"([\[\]{}])")
"""Strictly valid JSON up to its next bracket, captured."""


def _decoded(parser: _Parser, text: str, i: int, end: int, value: object) -> Decoded | None:
    parser.stack = []  # (the document's own brackets: it is read whole)
    if not _plain_depth(text, i, end, value) or not parser._last_quote_ends(i, end):
        return None
    return Decoded(value, i, end, True, False, frozenset({"inner_quotes"}))


def _escaped(text: str, i: int, stop: int, runs: list[tuple[int, int, str]]) -> str:
    """``text[i:stop]`` with the escaped ``runs`` in place."""
    parts, last = [], i
    for start, end, escaped in runs:
        parts.append(text[last:start])
        parts.append(escaped)
        last = end
    parts.append(text[last:stop])
    return "".join(parts)


def _after_quote(text: str, pos: int, msg: str) -> int:
    """The quote ending a value string right before the strict failure at ``pos`` (past
    whitespace, and a comma before a missing key or value), or -1."""
    comma = msg in _AFTER_COMMA
    if not comma and msg != _AFTER_VALUE:
        return -1
    b = pos - 1
    while b >= 0 and text[b] in _JSON_WS:
        b -= 1
    if comma:
        if b < 0 or text[b] != ",":
            return -1
        b -= 1
        while b >= 0 and text[b] in _JSON_WS:
            b -= 1
    return b if b >= 0 and text[b] == '"' else -1


def _plain_depth(text: str, i: int, end: int, value: object) -> bool:
    """Nesting the tolerant pass reads (at most `MAX_DEPTH`)."""
    if text.count("{", i, end) + text.count("[", i, end) <= MAX_DEPTH:
        return True
    return _depth(value) <= MAX_DEPTH
