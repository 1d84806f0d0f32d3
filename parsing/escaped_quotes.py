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

from parsing.json_rules import _NEVER_ENDS, _depth
from parsing.json_scan import Source, split_at_quotes
from parsing.json_strict import STRICT, WINDOW
from parsing.json_tolerant import MAX_DEPTH, Decoded, _Parser

MAX_ROUNDS: Final = 3
"""Strict decodings at most (each after a run of kept quotes escaped): denser quotes (code)
are left to the tolerant pass, which passes runs of them in one regex."""
_JSON_WS: Final = " \t\r\n"
_AFTER_VALUE = "Expecting ',' delimiter"
_AFTER_COMMA = {"Expecting property name enclosed in double quotes": "o", "Expecting value": "a"}
_BOTH = rf"(?={_NEVER_ENDS['o', False]})(?={_NEVER_ENDS['a', False]})"
_FREE_RUN = re.compile(rf'[^"\\]*+(?:(?:\\[\s\S]|"{_BOTH})[^"\\]*+)*+')
"""A string body up to its next quote that the tolerant pass may end it at, in an object or
in an array (the quotes passed over are kept in both, whatever brackets are open)."""


def escaped_quotes_at(
    text: str, i: int, error: tuple[int, str], marker: str | None = None
) -> Decoded | None:
    """The object/array at ``text[i]`` (a complete text, ``eof``) read by strict JSON once the
    quotes the tolerant pass keeps are escaped (see the module docstring), or None.
    ``error``: where and why the strict decoding of ``text[i:]`` failed."""
    parser = _Parser(Source(text, True, marker), i, {})
    runs: list[tuple[int, int, str]] = []  # (start, end, the text between, quotes escaped)
    shift = 0  # characters added by the escapes
    n, width = len(text), WINDOW
    while len(runs) < MAX_ROUNDS:  # a run of quotes escaped, then a decoding
        q = _kept(parser, text, *error)
        run = None if q < 0 else _kept_run(parser, text, q)
        if run is None:
            return None
        runs.append(run)
        shift += len(run[2]) - (run[1] - run[0])
        while True:
            stop = min(n, i + width)
            body = _escaped(text, i, stop, runs)
            try:
                value, end = STRICT.raw_decode(body)
            except json.JSONDecodeError as exc:
                cut = exc.msg.startswith("Unterminated string") or exc.pos >= len(body) - 6
                if stop < n and cut:
                    width *= 8
                    continue
                error = (i + exc.pos - shift, exc.msg)
                break
            except (ValueError, RecursionError):  # NaN, Infinity, an int past the digit limit
                return None
            return _decoded(parser, text, i, end + i - shift, value)
    return None


def _decoded(parser: _Parser, text: str, i: int, end: int, value: object) -> Decoded | None:
    if not _plain_depth(text, i, end, value) or not parser._last_quote_ends(i, end):
        return None
    return Decoded(value, i, end, True, False, frozenset({"inner_quotes"}))


def _kept_run(parser: _Parser, text: str, q: int) -> tuple[int, int, str] | None:
    """``q`` and the quotes after it in its string that the tolerant pass surely keeps too,
    wherever the string lies (strict JSON would fail right after each: one decoding for all):
    ``(q, end, text[q:end] with them escaped)``. None when the string runs on past `WINDOW`
    characters (left to the tolerant pass: this costs no more than a window), or when the
    next quote is followed by ``:`` or ``]`` (code: ``x["k"]``, ``{"b": 1}``), where strict
    JSON would most likely fail again: the tolerant pass reads it at once."""
    n, k = parser.src.n, q
    stop = min(n, q + WINDOW)
    while True:  # the quotes kept in both containers by the regex, then one by one
        k = _FREE_RUN.match(text, k + 1, stop).end()  # type: ignore[union-attr]
        if k >= stop or text[k] != '"' or not _free_kept(parser, text, k):
            break
    if k >= stop or text[k] != '"':
        return None
    after = parser.src.skip_ws(k + 1)
    if after < n and text[after] in ":]":
        return None
    return q, k, '\\"' + '\\"'.join(split_at_quotes(text[q + 1 : k], '"'))


def _escaped(text: str, i: int, stop: int, runs: list[tuple[int, int, str]]) -> str:
    """``text[i:stop]`` with the escaped ``runs`` in place."""
    parts, last = [], i
    for start, end, escaped in runs:
        parts.append(text[last:start])
        parts.append(escaped)
        last = end
    parts.append(text[last:stop])
    return "".join(parts)


def _kept(parser: _Parser, text: str, pos: int, msg: str) -> int:
    """The quote before the strict failure at ``pos`` that the tolerant pass keeps as a
    character (see the module docstring), or -1."""
    ctx = _AFTER_COMMA.get(msg)
    if ctx is None and msg != _AFTER_VALUE:
        return -1
    b = pos - 1
    while b >= 0 and text[b] in _JSON_WS:
        b -= 1
    if ctx is not None:  # after a comma
        if b < 0 or text[b] != ",":
            return -1
        b -= 1
        while b >= 0 and text[b] in _JSON_WS:
            b -= 1
    if b < 0 or text[b] != '"':
        return -1
    if ctx is None:  # what follows the quote must not depend on the container
        return b if _free_kept(parser, text, b) else -1
    return -1 if parser._quote_ends(b, ctx) else b


def _free_kept(parser: _Parser, text: str, k: int) -> bool:
    """Does the tolerant pass keep the quote at ``k`` whatever brackets are open and whatever
    container the string is in? `_Parser._quote_ends` answers False in an object and in an
    array, and what follows the quote (past whitespace and comments) is not a closer."""
    src = parser.src
    j = src.skip_ws(k + 1, comments=True)
    if src.ended(j) or text[j] in "}]":
        return False
    return not parser._quote_ends(k, "o") and not parser._quote_ends(k, "a")


def _plain_depth(text: str, i: int, end: int, value: object) -> bool:
    """Nesting the tolerant pass reads (at most `MAX_DEPTH`)."""
    if text.count("{", i, end) + text.count("[", i, end) <= MAX_DEPTH:
        return True
    return _depth(value) <= MAX_DEPTH
