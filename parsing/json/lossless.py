"""The lossless pass at C speed: orjson reports where a body is malformed, and the
malformations with one right answer are fixed at that exact position, then parsed again.

Fixes: a trailing comma (removed), a ``//`` or ``/* */`` comment outside strings (blanked),
a Python literal ``True/False/None`` (spelled in JSON), raw control characters inside a
string (escaped, the whole string at once). orjson's error position tells whether it is
inside or outside a string, so no fix ever touches string content. At most `MAX_FIXES`
rounds; anything else (inner quotes, single quotes, cut-off text) returns None and goes to
`json.tolerant`, which reads these same fixes identically.

`lossless_loads` reads a body whose extent is known (a fence or tag body up to its closer);
`lossless_at` reads the value that starts at an index of a longer text (bare JSON, or a body
whose closer also occurs inside its strings): orjson itself finds where the value ends (its
"unexpected content after document" position), so no Python loop walks the text. It only
answers where the tolerant pass provably reads the same: otherwise it returns None and the
caller goes on with its strict and tolerant passes.
"""

from __future__ import annotations

import re
from typing import Any, Final

import orjson

from parsing.json.strict import lenient_failure

MAX_FIXES: Final = 12
MAX_FAST_DEPTH: Final = 150
"""`lossless_at` leaves deeper values to the strict and tolerant passes (their depth limits)."""

_CONTROL = re.compile(r"[\x00-\x1f]")
_COMMON_CONTROLS: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_BIG_INT = re.compile(r"\d{19,}")
_STRING_REST = re.compile(r'[^"\\]*+(?:\\[\s\S][^"\\]*+)*+')
_LITERAL = re.compile(r"(True|False|None)(?![\w$])")
_COMMENT = re.compile(r"//[^\n]*|/\*[\s\S]*?\*/")
_PYTHON = {"True": "true", "False": "false", "None": "null"}
_JSON_WS: Final = " \t\r\n"
_KEY_AFTER = re.compile(r'"[ \t\r\n]*:')
_UNSAFE_COMMENT = re.compile(r"[`~<]")
_TRAILING = "unexpected content after document"
_END_OF_DATA = "unexpected end of data"


def surely_unfixed(text: str, i: int, at: int) -> bool:
    """Strict JSON read the value at ``text[i]`` up to a failure at ``at``: does
    `lossless_at` surely answer None? orjson reads the same up to there (every fix is made
    where json fails), and no fix applies at: the end of the text, an unknown escape of a
    printable character (``\\a``: a backslash is fixed only before a raw control character),
    a closer not after a comma (only a trailing comma is removed), any character but ``/``,
    a Python literal's first letter or a raw control character. At a raw control character
    (escaped in a string, the string then read on) the answer is the same at the character
    where json fails with those allowed (`strict.lenient_failure`): random JSON-like text
    failed there thousands of times, and this pass's rounds cost several times that scan."""
    if "" < text[at : at + 1] < " ":
        at = lenient_failure(text, i)
        if at < 0 or "" < text[at : at + 1] < " ":
            return False
    c = text[at : at + 1]
    if c == "\\":
        return text[at + 1 : at + 2] >= " "
    if c in ("]", "}"):
        j = at - 1
        while j > i and text[j] in _JSON_WS:
            j -= 1
        return text[j] != ","
    return c not in _FIXED_FIRST  # (the end of the text included)


_FIXED_FIRST: Final = frozenset("/TFN")


def _string_rest_end(body: str, pos: int) -> int:
    """Index of the quote ending the string whose text resumes at ``pos`` (an escape
    boundary), or where the body ends (a lone backslash at its end left out). (Where json's
    scanner reads the string it ends at the same quote; the pattern raises no error where
    the scanner refuses it, an unknown escape or no closing quote.)"""
    return _STRING_REST.match(body, pos).end()  # type: ignore[union-attr]


def _escape_string_controls(text: str) -> str:
    """A string's text (from an escape boundary) with its raw control characters escaped;
    a backslash that would escape one (an odd run of backslashes before it) becomes a
    backslash character, as the tolerant pass keeps an unknown escape."""
    if not any(f"\\{c}" in text for c in _COMMON_CONTROLS):
        fixed = text
        for char, escape in _COMMON_CONTROLS.items():
            fixed = fixed.replace(char, escape)  # (C speed: the common raw newlines)
        if fixed.isprintable() or _CONTROL.search(fixed) is None:
            return fixed
    out: list[str] = []
    last = 0
    for m in _CONTROL.finditer(text):
        at = run = m.start()
        while run > 0 and text[run - 1] == "\\":
            run -= 1
        odd = (at - run) % 2
        out.append(text[last : at - odd])
        out.append(("\\\\" if odd else "") + f"\\u{ord(text[at]):04x}")
        last = at + 1
    out.append(text[last:])
    return "".join(out)


def _fix(body: str, pos: int, msg: str) -> tuple[str, str] | None:
    """The body with the malformation at ``pos`` fixed, and the fix's name."""
    if msg.startswith("trailing comma") and body[pos : pos + 1] == ",":
        return body[:pos] + body[pos + 1 :], "trailing_comma"
    if msg.startswith("unexpected control character"):
        end = _string_rest_end(body, pos)
        fixed = _escape_string_controls(body[pos:end])
        return body[:pos] + fixed + body[end:], "string_characters"
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


def lossless_at(text: str, i: int) -> tuple[Any, int, frozenset[str]] | None:
    """``(value, end, fixes)`` for the object/array at ``text[i]`` read by orjson with lossless
    fixes, or None (not decodable so, or where the tolerant pass might read it otherwise).

    Reads a window that grows only while the value runs past it, so a failure costs about
    the distance to the failure, as in ``strict_at``.
    """
    n, width = len(text), 4096
    while True:
        stop = min(n, i + width)
        body = text if i == 0 and stop == n else text[i:stop]
        read = _read_prefix(body, final=stop >= n)
        if read is not _MORE:
            if read is None:
                return None
            value, end, fixes = read
            return value, i + end, fixes
        width *= 8


_MORE: Final = object()


def _read_prefix(body: str, *, final: bool) -> Any:
    """The value at the start of ``body``: ``(value, end, fixes)``, None, or `_MORE` when the
    window cut it (``final`` False)."""
    fixes: set[str] = set()
    shift = 0  # len(fixed body) - len(original body): every fix lies before the value's end
    for _round in range(MAX_FIXES + 2):
        try:
            value = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            pos, msg = exc.pos, exc.msg
            if msg.startswith(_TRAILING):
                body = body[:pos]
                continue
            fixed = None if msg.startswith(_END_OF_DATA) else _safe_fix(body, pos, msg)
            if fixed is None:
                return _MORE if not final and pos >= len(body) - 16 else None
            shift += len(fixed[0]) - len(body)
            body = fixed[0]
            fixes.add(fixed[1])
            continue
        return _checked(value, body, shift, fixes)
    return None


def _checked(value: Any, body: str, shift: int, fixes: set[str]) -> Any:
    end = len(body.rstrip(_JSON_WS))
    if not isinstance(value, dict | list) or not _plain(value):
        return None
    return value, end - shift, frozenset(fixes)


def _plain(value: dict[str, Any] | list[Any]) -> bool:
    """No float anywhere (orjson reads integers past 64 bits, and mantissas of 19 digits or
    more, otherwise than ``json``: floats are left to the other passes) and no nesting deeper
    than `MAX_FAST_DEPTH`."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        container, depth = stack.pop()
        if depth > MAX_FAST_DEPTH:
            return False
        for item in container.values() if type(container) is dict else container:
            kind = type(item)
            if kind is float:
                return False
            if kind is dict or kind is list:
                stack.append((item, depth + 1))
    return True


def _safe_fix(body: str, pos: int, msg: str) -> tuple[str, str] | None:
    """`_fix`, refused where the tolerant pass might read the text otherwise: a comment after
    a ``,`` or a quote (past a string's closing quote the tolerant pass looks for a key
    without skipping comments) or holding a fence or tag character (it may end the region);
    raw control characters in a key. A backslash before a raw control character is kept
    as a character, as the tolerant pass keeps an unknown escape."""
    after = body[pos + 1 : pos + 2]
    escaped_control = msg.startswith("invalid escape") and after != "" and after < " "
    if escaped_control or msg.startswith("unexpected control character"):
        end = _string_rest_end(body, pos)
        if _KEY_AFTER.match(body, end):
            return None
        fixed = _escape_string_controls(body[pos:end])
        return body[:pos] + fixed + body[end:], "string_characters"
    elif msg.startswith("unexpected character") and not _LITERAL.match(body, pos):
        m = _COMMENT.match(body, pos)
        if m is None or _UNSAFE_COMMENT.search(body, pos, m.end()):
            return None
        j = pos - 1
        while j >= 0 and body[j] in _JSON_WS:
            j -= 1
        if j >= 0 and body[j] in ',"':
            return None
    return _fix(body, pos, msg)


def may_load(body: str) -> bool:
    """Whether `lossless_loads` may still accept ``body`` once more text follows it: False
    when it fails, with nothing it fixes, at least 16 characters before the end (each fix
    and each error before that point is the same whatever follows)."""
    if _BIG_INT.search(body):
        return False
    for _round in range(MAX_FIXES + 1):
        try:
            orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            if exc.pos >= len(body) - 16:
                return True
            fixed = _fix(body, exc.pos, exc.msg)
            if fixed is None:
                return False
            body = fixed[0]
            continue
        return True
    return False
