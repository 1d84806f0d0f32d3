"""Strict JSON at C speed, on a window of a longer text: one value or one string body.

The C decoder's errors compute a line and column from the start of the text they were given,
so decoding in place at index ``i`` of a long reply would cost O(i) per failure (quadratic
over a reply full of failing candidates). Each reader here decodes a slice that starts at
``i`` and grows (x8) only while the failure is due to the slice's own end, so a failure
costs about the distance to it.

Numbers, strings, literals and nesting are read exactly as `json.loads` reads them;
``NaN`` / ``Infinity`` are refused (they are not JSON).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final

WINDOW: Final = 4096
"""First slice length; it grows x8 while the value runs past it."""


def _no_constants(name: str) -> Any:
    raise ValueError(f"not JSON: {name}")


STRICT: Final = json.JSONDecoder(parse_constant=_no_constants)
"""The strict decoder (``raw_decode``, ``scan_once``): NaN and Infinity refused."""
_scan_once: Callable[[str, int], tuple[Any, int]] = STRICT.scan_once  # type: ignore[attr-defined]
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
STRICT_BODY: Final = re.compile(r'(?:[^"\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+')
"""A string body as json's strict scanner reads it without an error, up to where it stops
(a closing quote, or what it refuses: a raw control character, an unknown escape)."""
SHORT_BODY: Final = 64
"""A body this short is checked by `STRICT_BODY` before json's scanner reads it: the
scanner's error costs ~2 us, more than reading a short body (JSON-like junk fails there
thousands of times); a longer one goes to the scanner at once (its loop is faster)."""
LENIENT_BODY: Final = re.compile(r'(?:[^"\\]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+')
"""A string body as json's lenient scanner reads it (raw control characters allowed)."""


def _early_failure(body: re.Pattern[str], refused: str) -> re.Pattern[str]:
    """Where json's scanner fails on a value that opens with brackets then fails at or just
    after its first key or string (random JSON-like text's commonest failures), read at C
    speed without the scanner's error (it costs about twice a read). Groups: ``key``, a
    character that starts no key after ``{``; ``bad``, the first character of the string's
    body that ``body`` stops at and ``refused`` matches (an unknown escape fails at its
    backslash); ``after``, the character after the string (and whitespace) where a key's
    ``:`` (group ``k``: the string is a key) or an element's ``,`` or ``]`` is wanted."""
    ws = r"[ \t\n\r]*+"
    return re.compile(
        rf"(?=[\[{{])(?:\[{ws}){{0,64}}+"  # (a bracket first: not a string's own reading)
        rf'(?:\{{{ws}(?:(?P<key>[^"}} \t\n\r])|(?P<k>"))|")'
        rf"(?(key)|{body.pattern}(?:(?P<bad>{refused})|"
        rf'"{ws}(?P<after>(?(k)[^: \t\n\r]|[^,\] \t\n\r]))))'
    )


_UNKNOWN_ESCAPE: Final = r'\\[^"\\/bfnrtu]'
_STRICT_EARLY: Final = _early_failure(STRICT_BODY, rf"[\x00-\x1f]|{_UNKNOWN_ESCAPE}")
_LENIENT_EARLY: Final = _early_failure(LENIENT_BODY, _UNKNOWN_ESCAPE)


early_match: Final = _STRICT_EARLY.match
"""``early_match(text, i)``: the match of `_early_failure` for `STRICT` at ``text[i]``, or None
(the scanner's failure there, if any, is not an early one)."""


def early_failure(early: re.Match[str]) -> tuple[int, str]:
    """Where and why `STRICT` fails on the value an `early_match` matched."""
    pos = early.end() - 1
    if early.start("key") >= 0:
        return pos, "Expecting property name enclosed in double quotes"
    if early.start("after") >= 0:
        return pos, "Expecting ':' delimiter" if early.start("k") >= 0 else _NO_COMMA
    pos = early.start("bad")
    return pos, "Invalid control character at" if early.string[pos] < " " else "Invalid \\escape"


_NO_COMMA: Final = "Expecting ',' delimiter"
LENIENT: Final = json.JSONDecoder(strict=False, parse_constant=_no_constants)
"""The strict decoder but for raw control characters inside strings (read as they are)."""
_lenient_scan_once: Callable[[str, int], tuple[Any, int]] = LENIENT.scan_once  # type: ignore[attr-defined]
_CUT_SLACK: Final = 6
"""A failure this close to the slice's end may be the slice's doing (``\\u12`` cut short)."""


def strict_value(text: str, i: int) -> tuple[Any, int] | int:
    """The strictly valid JSON value at ``text[i]``: ``(value, end)``; else the index where
    strict decoding failed (``i`` when unknown: nothing valid there, too deep, NaN...)."""
    early = early_match(text, i)
    if early is not None:
        return early_failure(early)[0]
    n, width = len(text), WINDOW
    while True:
        stop = min(n, i + width)
        window = text if i == 0 and stop == n else text[i:stop]
        try:
            value, end = _scan_once(window, 0)
            if stop >= n or end < len(window) - _CUT_SLACK:  # (a number may run on)
                return value, i + end
        except json.JSONDecodeError as exc:
            if stop >= n or not _cut_by_window(exc, len(window)):
                return i + exc.pos
        except StopIteration:
            return i
        except (ValueError, RecursionError):  # a constant, an int past the digit limit
            return i
        width *= 8


def lenient_failure(text: str, i: int) -> int:
    """Where `LENIENT` fails on the value at ``text[i]``: its index, or -1 when it reads the
    value, or fails on no character (NaN, too deep)."""
    early = _LENIENT_EARLY.match(text, i)
    if early is not None:
        return early.start("bad") if early.start("bad") >= 0 else early.end() - 1
    n, width = len(text), WINDOW
    while True:
        stop = min(n, i + width)
        window = text if i == 0 and stop == n else text[i:stop]
        try:
            _lenient_scan_once(window, 0)
            return -1
        except json.JSONDecodeError as exc:
            if stop >= n or not _cut_by_window(exc, len(window)):
                return i + exc.pos
        except (StopIteration, ValueError, RecursionError):
            return -1
        width *= 8


def strict_string(text: str, j: int) -> tuple[str, int] | None:
    """The strictly valid string body starting at ``text[j]`` (just after its opening
    ``"``): ``(value, end)`` with ``end`` just after the closing quote, or None (a raw
    control character, an unknown escape, no closing quote)."""
    quote = text.find('"', j)
    if quote < 0:
        return None
    if text[quote - 1] != "\\":  # the first quote ends the body: decode exactly that
        if quote - j <= SHORT_BODY and STRICT_BODY.match(text, j, quote).end() < quote:  # type: ignore[union-attr]
            return None
        try:
            value, end = _scanstring(text[j : quote + 1], 0, True)
            return value, j + end
        except json.JSONDecodeError:
            return None
    n, width = len(text), WINDOW
    bound = min(n, j + SHORT_BODY)  # (an escaped quote first: where the body stops, if near)
    stop = STRICT_BODY.match(text, j, bound).end()  # type: ignore[union-attr]
    if stop < bound - _CUT_SLACK:  # (not an escape cut by the bound)
        if text[stop] != '"':
            return None
        value, end = _scanstring(text[j : stop + 1], 0, True)
        return value, j + end
    while True:
        stop = min(n, j + width)
        try:
            value, end = _scanstring(text[j:stop], 0, True)
            return value, j + end
        except json.JSONDecodeError as exc:
            if stop >= n or not _cut_by_window(exc, stop - j):
                return None
        width *= 8


def _cut_by_window(exc: json.JSONDecodeError, size: int) -> bool:
    return exc.msg.startswith("Unterminated string") or exc.pos >= size - _CUT_SLACK
