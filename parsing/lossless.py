"""The lossless pass at C speed: orjson reports where a body is malformed, and the
malformations with one right answer are fixed at that exact position, then parsed again.

Fixes: a trailing comma (removed), a ``//`` or ``/* */`` comment outside strings (blanked),
a Python literal ``True/False/None`` (spelled in JSON), raw control characters inside a
string (escaped, the whole string at once). orjson's error position tells whether it is
inside or outside a string, so no fix ever touches string content. At most `MAX_FIXES`
rounds; anything else (inner quotes, single quotes, cut-off text) returns None and goes to
`json_tolerant`, which reads these same fixes identically.

Used on a body whose extent is known: a fence or tag body up to its closer.
"""

from __future__ import annotations

import re
from typing import Any, Final

import orjson

MAX_FIXES: Final = 12

_CONTROL = re.compile(r"[\x00-\x1f]")
_BIG_INT = re.compile(r"\d{19,}")
_STRING_REST = re.compile(r'[^"\\]*(?:\\[\s\S][^"\\]*)*')
_LITERAL = re.compile(r"(True|False|None)(?![\w$])")
_COMMENT = re.compile(r"//[^\n]*|/\*[\s\S]*?\*/")
_PYTHON = {"True": "true", "False": "false", "None": "null"}


def _escape_control(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _fix(body: str, pos: int, msg: str) -> tuple[str, str] | None:
    """The body with the malformation at ``pos`` fixed, and the fix's name."""
    if msg.startswith("trailing comma") and body[pos : pos + 1] == ",":
        return body[:pos] + body[pos + 1 :], "trailing_comma"
    if msg.startswith("unexpected control character"):
        m = _STRING_REST.match(body, pos)
        assert m is not None
        fixed = _CONTROL.sub(_escape_control, body[pos : m.end()])
        return body[:pos] + fixed + body[m.end() :], "string_characters"
    if msg.startswith("unexpected character"):
        m = _LITERAL.match(body, pos)
        if m is not None:
            return body[:pos] + _PYTHON[m.group(1)] + body[m.end() :], "python_literal"
        m = _COMMENT.match(body, pos)
        if m is not None:
            return body[:pos] + " " * (m.end() - pos) + body[m.end() :], "comment"
    return None


def lossless_loads(body: str) -> tuple[Any, frozenset[str]] | None:
    """``(value, fixes)`` if ``body`` is one JSON value once lossless fixes are applied."""
    if _BIG_INT.search(body):
        return None  # orjson would read integers past 64 bits as floats
    fixes: set[str] = set()
    for _round in range(MAX_FIXES + 1):
        try:
            return orjson.loads(body), frozenset(fixes)
        except orjson.JSONDecodeError as exc:
            fixed = _fix(body, exc.pos, exc.msg)
        if fixed is None:
            return None
        body, name = fixed
        fixes.add(name)
    return None
