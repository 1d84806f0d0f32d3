"""Low-level reading helpers shared by the tolerant JSON parser: the input window, strings.

`Source` is the text being parsed plus what ends it: the end of the text (``eof=True``: the
reply is complete; ``eof=False``: more may stream in, so any decision that needs a character
past the end raises `NeedMore`) and an optional *end marker* (a closing ``` fence or
``</tool_call>``) that ends the region when met outside a string.

Strings are read with regular expressions that jump from quote to quote, so long string
values (file contents) cost a few steps per escape, not a Python step per character.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from parsing.json.strict import LENIENT_BODY, SHORT_BODY, STRICT_BODY

_WS = re.compile(r"\s*")
_WS_COMMENTS = re.compile(r"(?>\s+|//[^\n]*+|/\*[\s\S]*?(?:\*/|\Z))*+")
WS_COMMENTS = _WS_COMMENTS
"""Whitespace and comments (what `Source.skip_ws` skips with ``comments=True``)."""
_DQ_RUN = re.compile(r'[^"\\]*+(?:\\[\s\S][^"\\]*+)*+')
_SQ_RUN = re.compile(r"[^'\\]*+(?:\\[\s\S][^'\\]*+)*+")
_DQ_SEGMENT = re.compile(r'([^"\\]*+(?:\\[\s\S][^"\\]*+)*+)"')
_SQ_SEGMENT = re.compile(r"([^'\\]*+(?:\\[\s\S][^'\\]*+)*+)'")
_CONTROL = re.compile(r"[\x00-\x1f]")
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|[\s\S])")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SIMPLE_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "'": "'",
}
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


class NeedMore(Exception):
    """The decision depends on text that has not arrived yet (streaming only)."""


class Source:
    """The text, where its readable part ends, and the region's end marker."""

    __slots__ = ("eof", "marker", "n", "text")

    def __init__(self, text: str, eof: bool = True, marker: str | None = None) -> None:
        # (its own __init__: a try makes one, and a dataclass's with __post_init__ cost more)
        self.text, self.eof, self.marker, self.n = text, eof, marker, len(text)

    def at_end(self, i: int) -> bool:
        """True if ``i`` is the end of the input; raises `NeedMore` there while streaming."""
        if i < self.n:
            return False
        if not self.eof:
            raise NeedMore
        return True

    def marker_at(self, i: int) -> bool:
        """True if the region's end marker starts at ``i`` (``i < n``)."""
        m = self.marker
        if m is None or self.text[i] != m[0]:
            return False
        if self.text.startswith(m, i):
            return True
        if not self.eof and self.n - i < len(m) and m.startswith(self.text[i:]):
            raise NeedMore
        return False

    def ended(self, i: int) -> bool:
        """True at the end of the input or at the region's end marker."""
        if i < self.n:  # (`at_end` and `marker_at` inlined for the common answer: hot path)
            m = self.marker
            return m is not None and self.text[i] == m[0] and self.marker_at(i)
        if not self.eof:
            raise NeedMore
        return True

    def skip_ws(self, i: int, comments: bool = False) -> int:
        """Index of the first character at or after ``i`` that is not whitespace (or comment);
        with ``comments``, raises `NeedMore` on a lone ``/`` at the end while streaming."""
        if i < self.n and " " < self.text[i] < "\x85" and (not comments or self.text[i] != "/"):
            return i  # no whitespace there (every \s character is at most " " or from "\x85")
        if not comments:
            return _WS.match(self.text, i).end()  # type: ignore[union-attr]
        j = _WS_COMMENTS.match(self.text, i).end()  # type: ignore[union-attr]
        if j == self.n - 1 and not self.eof and self.text[j] == "/":
            raise NeedMore  # a comment may be starting ("//" or "/*")
        return j

    def peek(self, i: int, comments: bool = True) -> str:
        """The first character at or after ``i`` that is not whitespace (or a comment);
        '' at the end or at the marker."""
        j = self.skip_ws(i, comments)
        return "" if self.ended(j) else self.text[j]


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if len(code) == 5:
        return chr(int(code[1:], 16))
    simple = _SIMPLE_ESCAPES.get(code)
    return simple if simple is not None else "\\" + code


_BODY_READINGS = ((True, STRICT_BODY), (False, LENIENT_BODY))


def decode_segment(text: str, start: int, end: int) -> tuple[str, bool]:
    """Decode a string body ``text[start:end]`` (no unescaped quote inside): (value, lenient).

    ``lenient`` is True when the body was not valid JSON (raw control characters, unknown
    escapes such as ``\\'``): the decoding keeps every character (an unknown escape
    ``\\d`` stays ``\\d``, a raw newline stays a newline).
    """
    if text.find("\\", start, end) < 0:
        raw = text[start:end]  # (printable text holds no control character: C speed)
        return raw, not raw.isprintable() and _CONTROL.search(raw) is not None
    body = text[start:end] + '"'  # decoded on its own: an error costs O(body), not O(text)
    short = end - start <= SHORT_BODY  # (a pattern first, not the scanner's error: see there)
    # strictly valid (no control character, no unknown escape: the common case), then valid
    # but for raw control characters
    for strict, pattern in _BODY_READINGS:
        if not short or pattern.match(body).end() == end - start:  # type: ignore[union-attr]
            try:
                value, stop = _scanstring(body, 0, strict)
                if stop == len(body):
                    return value, not strict and _CONTROL.search(body) is not None
            except json.JSONDecodeError as exc:
                if not exc.msg.startswith("Invalid control"):
                    break  # an escape: the lenient reading, the same before it, fails there
            except ValueError:
                pass
    raw = _ESCAPE.sub(_unescape, body[:-1])
    if _SURROGATE.search(raw):
        raw = raw.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
    return raw, True


def run_pattern(quote: str) -> re.Pattern[str]:
    """The pattern matching a string body up to its next unescaped ``quote``."""
    return _DQ_RUN if quote == '"' else _SQ_RUN


def split_at_quotes(body: str, quote: str) -> list[str]:
    """A string body cut at its unescaped ``quote`` characters (the segments the tolerant
    parser joins with a kept quote), at C speed."""
    if body.find(quote) < 0:
        return [body]
    if body.find("\\" + quote) < 0 and body[-1:] != "\\":  # no quote escaped: all cut
        return body.split(quote)
    # a sentinel quote ends the body: the matches are contiguous, so none starts inside an
    # escape pair, and each captures the segment before its quote
    pattern = _DQ_SEGMENT if quote == '"' else _SQ_SEGMENT
    return pattern.split(body + quote)[1::2]


def string_run_end(src: Source, i: int, quote: str) -> int:
    """Index of the next unescaped ``quote`` at or after ``i`` (``n`` if none).

    A lone backslash as the very last character is left out (it starts an escape whose
    second character has not arrived).
    """
    pattern = _DQ_RUN if quote == '"' else _SQ_RUN
    return pattern.match(src.text, i).end()  # type: ignore[union-attr]


_FOUND: dict[str, tuple[str, int, int]] = {}
"""Per needle, the last `next_found` answer: (text, from, at)."""


def next_found(text: str, needle: str, i: int) -> int:
    """``text.find(needle, i)``, or ``len(text)`` if none, remembering the last answer per
    needle: the next occurrence after ``i`` is the one after any ``i0 <= i`` that lies at or
    after ``i``, so the readings of the candidates of one text, left to right, search each
    stretch once (a text without a newline searched to its end from each of n candidates
    was O(n^2): ``{"a":"b",`` x n)."""
    last = _FOUND.get(needle)
    if last is not None and last[0] is text and last[1] <= i <= last[2]:
        return last[2]
    at = text.find(needle, i)
    if at < 0:
        at = len(text)
    _FOUND[needle] = (text, i, at)
    return at
