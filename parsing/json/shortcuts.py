"""Decisions the snippet parsers (`json.snippets`) take without the strict, lossless and
tolerant passes, where those passes surely answer the same: which bare ``{`` can start an
object, flat objects in prose (rejected, or pending at the end of a streamed text), and a
region's first value cut at once by its closer. Each is pinned to the answer it replaces by
a property test (tests/unit/parsing/test_fast_paths.py).
"""

from __future__ import annotations

import re

from parsing.json.regions import snippet_of
from parsing.json.rules import _IDENT_KEY, _IDENT_PARTIAL, _LITERAL, _NEVER_ENDS
from parsing.json.tolerant import MAX_DEPTH, Decoded, Rejected
from parsing.regions import PENDING, Found, Match, NoMatch, _Pending

# Every repetition here is possessive (``*+``, ``?+``) or atomic (``(?>...)``): a failing
# match never backtracks into it (``{"a"`` then n slashes was exponential with plain ``*``:
# 28 s at n=44). A comment between a key and its colon counts up to `_COMMENT_MAX`
# characters: a candidate is decided without reading to the end of a long line or of an
# unclosed comment, so n candidates on one line cost O(n), not O(n^2).
_COMMENT = r"//[^\n]{0,256}+(?=\n)|/\*(?:[^*]|\*(?!/)){0,256}+\*/"
_COMMENT_PREFIX = r"//[^\n]{0,256}+|/\*(?:[^*]|\*(?!/)){0,256}+(?:\*/)?+"
_OBJECT_START = re.compile(
    r"""\{\s*+(?:\}|(?>"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+"|'[^'\\]*+(?:\\[\s\S][^'\\]*+)*+'"""
    rf"""|[A-Za-z_$][\w$.-]*+)(?>\s+|{_COMMENT})*+:)"""
)
_OBJECT_PREFIX = re.compile(
    r"""\{\s*+(?>"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+"?|'[^'\\]*+(?:\\[\s\S][^'\\]*+)*+'?"""
    rf"""|[A-Za-z_$][\w$.-]*+)?+(?>\s+|{_COMMENT_PREFIX}|/)*+\\?+"""
)
# An object in prose that the tolerant pass surely rejects, decided at C speed: flat members
# (a plain key, ``:``, a one-line value holding no bracket, quote, comment or backslash, then
# ``,``) followed by what cannot start a key (``{a: b, {``). Strict JSON and the lossless
# pass fail there too (nothing they fix), and no decision needs text past that character.
_FLAT_REJECT = re.compile(
    r"""\{\s*+(?:(?:[A-Za-z_$][\w$.-]*+|"[^"\\\n]*+"|'[^'\\\n]*+')\s*+:\s*+"""
    r"""[^\s,{}\[\]"'/`~<\\][^\n,{}\[\]"'/`~<\\]*+\s*+,\s*+)++"""
    r"""(?=[^\s\w"'}\]/\\.+\-$\x00-\x1f])"""
)
# Flat members with plain keys up to the end of a streamed text (``{a: b, ``, ``{a: b, c:``):
# every pass needs more text there (the strict pass fails at the plain key, the lossless one
# has nothing to fix, the tolerant one reads each member, a one-line value holding no
# bracket, quote, comment or backslash, as an unquoted value or a literal, and the end of
# the text cuts the next key, colon or value). The candidate is pending, decided without
# those passes.
_FLAT_KEY = r"[A-Za-z_$][\w$.-]*+\s*+"
_FLAT_VALUE = r"""[^\s,{}\[\]"'/`~<\\][^\n,{}\[\]"'/`~<\\]*+\s*+"""
_FLAT_PENDING = re.compile(
    rf"\{{\s*+(?:(?:{_FLAT_KEY}:\s*+{_FLAT_VALUE},\s*+)++(?:{_FLAT_KEY}(?::\s*+(?:{_FLAT_VALUE})?+)?+)?+"
    rf"|{_FLAT_KEY}:\s*+(?:{_FLAT_VALUE})?+)\Z"
)

# An object in prose whose first value is a quoted string that the tolerant pass ends at a
# quote followed by ``:`` (``{"a":"b",{"a":``: the quote after ``b`` is kept, as the one
# after ``{``, a comma then ``{`` and a letter following them; the one after the second
# ``a`` ends the string, and a ``:`` after a value rejects the document). Each quote passed
# over is one the value-run regex of the tolerant pass keeps (`_NEVER_ENDS`, whatever the
# open brackets: decided from characters present, so a longer text decides the same), the
# string holds no backslash or newline, and no comment lies between the tokens: strict JSON
# and the lossless pass fail there too. Decided at C speed, for one quote kind per string.
# Up to 3 members may come first, each a key and a string value so read whose last quote is
# followed by a comma then the next key and its colon (the tolerant pass ends the value
# there: a key follows), as in ``{"action":"text_response","text_response":"{"action":``.
_KEY_Q = r"""(?:"[^"\\\n]*+"|'[^'\\\n]*+')"""
_KEPT = {q: rf"""{q}(?={_NEVER_ENDS["o", False]})""" for q in "\"'"}
_VALUE_BODY = {q: rf"""{q}(?:[^{q}\\\n]++|{_KEPT[q]}){{0,32}}+""" for q in "\"'"}
"""A string value's opening quote and body up to a quote the tolerant pass may end it at, in
at most 32 runs of characters or kept quotes: a candidate costs a bounded number of
lookaheads, however long its strings (each regex here scans them again). A body cut by the
bound at a kept quote matches nothing after it: every regex here goes on with what a kept
quote is never followed by (``:``, a comma then a key or the end, the end), so a string
holding more kept quotes is left to the passes."""
_MEMBER = rf"""{_KEY_Q}[ \t\n\r]*+:[ \t\n\r]*+(?:{_VALUE_BODY['"']}"|{_VALUE_BODY["'"]}')"""
_FIRST_VALUE = (
    rf"\{{[ \t\n\r]*+(?:{_MEMBER}[ \t\n\r]*+,[ \t\n\r]*+){{0,3}}+{_KEY_Q}[ \t\n\r]*+:[ \t\n\r]*+"
)
_FIRST_VALUE_REJECT = re.compile(
    rf"""{_FIRST_VALUE}(?:{_VALUE_BODY['"']}"|{_VALUE_BODY["'"]}')[ \t\n\r]*+:"""
)
# ... or whose first value is unquoted, ends its line (``{"action":```\n{``: a fence after
# the key) and is followed by what cannot continue the object: the tolerant pass reads the
# value up to the newline (it starts no number, literal, string or container, and holds no
# comma, bracket, quote or backslash), then rejects at that character (no comma, closer or
# key). Strict JSON fails at the value and the lossless pass has nothing to fix there.
_LINE_VALUE_REJECT = re.compile(
    rf"""{_FIRST_VALUE}[^\s,{{}}\[\]"'/\\\-0-9tfnTFN:][^\n,{{}}\[\]"'\\]*+\n[ \t\n\r]*+"""
    r"""[^\s,}\]"'/]"""
)
# ... or still on that line at the end of a streamed text (every pass needs more text there).
_LINE_VALUE_PENDING = re.compile(
    rf"""{_FIRST_VALUE}[^\s,{{}}\[\]"'/\\\-0-9tfnTFN:][^\n,{{}}\[\]"'\\]*+(?:\n[ \t\n\r]*+)?+\Z"""
)
# ... or whose first value is an object that opens with a bracket where its first key
# should be (``{"name":"x","arguments":{{``): rejected there by the tolerant pass, both
# objects open (see `_bracket_for_key`, which answers it after the strict pass otherwise).
_OPENED_VALUE_REJECT = re.compile(rf"{_FIRST_VALUE}(?P<inner>\{{)[ \t\n\r]*+[{{\[]")
# ... and that string still open at the end of a streamed text, every quote in it passed
# over so, or closed by a quote then the end (after whitespace and maybe a comma): the
# tolerant pass reads the string up to the end of the text, or needs what follows the quote
# to decide whether it ends the string (every pass needs more text: the candidate is
# pending).
_FIRST_VALUE_PENDING = re.compile(
    rf"""{_FIRST_VALUE}(?:{_VALUE_BODY['"']}(?:"[ \t\n\r]*+(?:,[ \t\n\r]*+)?+)?+"""
    rf"""|{_VALUE_BODY["'"]}(?:'[ \t\n\r]*+(?:,[ \t\n\r]*+)?+)?+)\Z"""
)

# The four rejections above, tried in that order in one call (each alone at ``i``: the first
# that matches answers, as one `match` after another did; a regex call's fixed cost, ~1-2k
# instructions, was paid four times per ``{`` candidate), and the two pending readings.
_REJECT_AT_START = re.compile(
    "|".join(
        f"(?:{r.pattern})"
        for r in (_FLAT_REJECT, _FIRST_VALUE_REJECT, _LINE_VALUE_REJECT, _OPENED_VALUE_REJECT)
    )
)
_PENDING_AT_START = re.compile(
    f"(?:{_FIRST_VALUE_PENDING.pattern})|(?:{_LINE_VALUE_PENDING.pattern})"
)

_JSON_WS = re.compile(r"[ \t\n\r]*+")


_TRUNCATED = frozenset({"truncated"})
_KEY_GAP = re.compile(r'[ \t\n\r]*+(?:"[^"\\\n`~<]*+"[ \t\n\r]*+:[ \t\n\r]*+)?+')
"""What may lie between an object's ``{`` and a closer cutting it (`_cut_at_once`): JSON
whitespace, maybe a first key (no escape, newline or marker character in it) and its colon,
whose value the closer cuts (the key is dropped: no value)."""
_KEY_CUT = re.compile(r'[ \t\n\r]*+"[^"\\\n`~<]*+(?:"[ \t\n\r]*+)?\Z')
"""A streamed text that ends in an object's first key of `_KEY_GAP` (or before its colon)."""


def _cut_at_once(text: str, v: int, close: str, eof: bool = True) -> Decoded | _Pending | None:
    """The reading of a region's first value when the region's closer follows its opening
    bracket at once (after JSON whitespace, or an object's first key and colon: ``{`` then
    a closing fence, ``{"action":`` then one): the empty container,
    cut off; None otherwise. What `match_enclosed`'s general loop reads there: the region's
    body up to the closer is no value (`_whole_body`), the strict pass fails at the closer
    and the lossless one does not apply (its first character, a fence character or ``<``,
    is none it fixes), and the tolerant reading is this one (a property test checks it).

    While streaming, PENDING when the text ends where the closer is looked for (after the
    gap), or holds only the start of the closer there: every pass needs more text (the
    strict pass reads a valid prefix, or fails at a closer character; the tolerant one asks
    whether the closer comes). A property test pins it to the general loop."""
    gap = _KEY_GAP if text[v] == "{" else _JSON_WS
    j = gap.match(text, v + 1).end()  # type: ignore[union-attr]
    if not text.startswith(close, j):
        if not eof and len(text) - j < len(close) and close.startswith(text[j:]):
            return PENDING
        if not eof and text[v] == "{" and _KEY_CUT.match(text, v + 1):
            return PENDING  # (as every pass: the key's string or colon is still to come)
        return None
    return Decoded({} if text[v] == "{" else [], v, j, True, True, _TRUNCATED)


def closer_run_end(text: str, at: int, close: str, eof: bool) -> int:
    """The end of the closer ``close`` found at ``text[at]``: a fence closer swallows its
    whole run of fence characters; -1 while streaming when that run reaches the end of the
    text (it may still grow). (`json.regions.closing_end` where the closer comes at once.)"""
    end = at + len(close)
    char = close[0]
    if char not in "`~":
        return end
    n = len(text)
    while end < n and text[end] == char:
        end += 1
    return -1 if end >= n and not eof else end


def _no_closer_yet(text: str, body_start: int, close: str, eof: bool, repair: bool) -> bool:
    """While streaming, a region whose closer has not come yet (not even inside a string) is
    pending whatever its body holds, when an undecodable body goes to json-repair (which
    waits for the closer): every way `match_enclosed` decides needs the closer."""
    return repair and not eof and text.find(close, body_start) < 0


# A flat object of plain keys and unquoted values, closed (``{mode: <think>}``): read at C
# speed as the tolerant pass reads it (a bare object: no region marker, so ``<``, a backtick
# or ``~`` is a character of the value). Each key is an identifier before ``:``, each value
# starts with none of whitespace, a comment, a bracket, a quote or a backslash, holds no
# newline, bracket, comma, quote, slash or backslash, and ends at ``,`` or ``}`` (after
# whitespace); a value that starts a number or literal is left to the passes.
_FLAT_MEMBER = r"""[A-Za-z_$][\w$.-]*+\s*+:\s*+[^\s,{}\[\]"'/\\][^\n,{}\[\]"'/\\]*+\s*+"""
_FLAT_CLOSED = re.compile(rf"\{{\s*+(?:{_FLAT_MEMBER},\s*+)*+{_FLAT_MEMBER}\}}")
_FLAT_PARTS = re.compile(r"""([A-Za-z_$][\w$.-]*+)\s*+:\s*+([^\n,{}\[\]"'/\\]*+)""")
_SCALAR_START = re.compile(r"-?(?:0|[1-9])|(?:true|false|null|True|False|None)(?![\w$])")
_UNQUOTED_FIXES = frozenset({"unquoted_key", "unquoted_value"})


def _flat_closed(text: str, i: int) -> Decoded | None:
    """The tolerant reading of a closed flat object at ``text[i]`` (`_FLAT_CLOSED`), or None
    (not one, or a value the passes may read as a number or literal): its keys unquoted, its
    values unquoted and stripped, the last of a repeated key kept (a property test pins it
    to the strict, lossless and tolerant passes)."""
    m = _FLAT_CLOSED.match(text, i)
    if m is None:
        return None
    value: dict[str, str] = {}
    for key, raw in _FLAT_PARTS.findall(text, i + 1, m.end() - 1):
        if _SCALAR_START.match(raw) is not None:
            return None
        value[key] = raw.strip()
    return Decoded(value, i, m.end(), True, False, _UNQUOTED_FIXES)


def _object_start(text: str, i: int, eof: bool) -> Match | None:
    """`match_bare_at`'s answers at a ``{`` taken before the passes (None: none taken)."""
    if _OBJECT_START.match(text, i) is None:
        if not eof:
            prefix = _OBJECT_PREFIX.match(text, i)
            if prefix is not None and prefix.end() == len(text):
                return PENDING
        return NoMatch()
    rejected = _REJECT_AT_START.match(text, i)
    if rejected is not None:  # what the tolerant pass answers there, without its cost
        inner = rejected.start("inner")  # (an opened first value: the inner object fails too)
        return NoMatch((inner,)) if inner >= 0 else NoMatch()
    if not eof and len(text) - i < 256 and _PENDING_AT_START.match(text, i):
        return PENDING  # (a short candidate, as below)
    if text[i + 1 : i + 2] == '"':  # (the flat readings below need a plain first key)
        return None
    if not eof and len(text) - i < 256 and _FLAT_PENDING.match(text, i):
        return PENDING  # what every pass answers there (a short candidate: see `resume`)
    flat = _flat_closed(text, i)
    if flat is not None:  # ({mode: <think>}: the tolerant reading, at C speed)
        return Found((snippet_of((i, flat.end), flat, "bare_json"),), flat.end)
    return None


# Strict JSON failed at a ``{`` or ``[`` where an object just opened wants its first key
# (``{"name":"x","arguments":{{``). Before that failure the text is strictly valid JSON; with
# no closer outside its strings there, the tolerant pass reads it token for token as strict
# JSON (each value string ends at the quote strict JSON ends it at: a comma then a key or an
# element follows it, or a colon follows a key; numbers and literals end at a comma or
# whitespace), opening every bracket, and rejects the document at that character (no key
# starts with a bracket), every bracket open then (nesting at most `MAX_DEPTH`).
_NO_KEY_MSG = "Expecting property name enclosed in double quotes"
_NO_CLOSER = re.compile(r'(?:[^"\]}]++|"(?:[^"\\]++|\\[\s\S])*+")*+')
_OPENERS = re.compile(r'"(?:[^"\\]++|\\[\s\S])*+"|([{\[])')


def _bracket_for_key(text: str, i: int, failure: tuple[int, str] | None) -> NoMatch | None:
    """`match_bare_at`'s answer at ``text[i]`` after strict JSON failed there at
    ``failure`` (where, why), when it is the tolerant pass's rejection described above."""
    if failure is None or failure[1] != _NO_KEY_MSG:
        return None
    pos = failure[0]
    if text[pos : pos + 1] not in ("{", "[") or text[_last_non_ws(text, i, pos)] != "{":
        return None
    if text.count("{", i, pos) + text.count("[", i, pos) > MAX_DEPTH:
        return None
    if _NO_CLOSER.match(text, i, pos).end() != pos:  # type: ignore[union-attr]
        return None
    opened = (m.start(1) for m in _OPENERS.finditer(text, i + 1, pos) if m.start(1) >= 0)
    return NoMatch(tuple(opened))


def _last_non_ws(text: str, i: int, pos: int) -> int:
    b = pos - 1
    while b > i and text[b] in " \t\n\r":
        b -= 1
    return b


# Strict JSON failed at ``p`` after a prefix of brackets, commas and JSON whitespace only (no
# string, scalar or comment: ``[[{}, :``, ``{ \\``). The tolerant pass reads such a prefix
# token for token as strict JSON (an array's elements, empty objects) and reaches ``p`` with
# the same brackets open, in the state the last token before ``p`` leaves: an array's element
# after ``[`` or ``,``, an object's first key after ``{``, a comma or closer after ``]`` or
# ``}``. It rejects the document at ``p`` for these characters, looking at nothing past them
# but for a letter (in an array a literal, or a number or literal cut off at the end of a
# streamed text; after ``{`` an unquoted key, or a word cut off there: left to the pass),
# every bracket open then (nesting within `MAX_DEPTH`).
_BRACKET_PREFIX = re.compile(r"[\[\]{}, \t\n\r]*+")
_BRACKETS = re.compile(r"[\[\]{}]")
_REJECTS = {"[": ":,\\", ",": ":,\\", "{": ":,\\{[", "]": ":\\{[\"'", "}": ":\\{[\"'"}
"""By the last token before ``p``: the characters the tolerant pass rejects there (and any
letter after a closer; after ``[`` or ``,`` a letter that starts no literal, see above;
after ``{`` one that starts no unquoted key: no ``:`` after its word)."""
_WORD_TO_END = re.compile(r"[\w.+-]*+\Z")


def bracket_prefix_reject(text: str, i: int, failure: tuple[int, str] | None) -> Rejected | None:
    """The tolerant pass's rejection of the bare value at ``text[i]`` where strict JSON
    failed at ``failure`` (where, why) after a prefix of brackets (see above), else None. A
    ``{`` before a character that starts no key fails strict JSON there (no failure kept)."""
    if failure is not None:
        p = failure[0]
    elif text[i] == "{":
        p = _JSON_WS.match(text, i + 1).end()  # type: ignore[union-attr]
    else:
        return None
    if p >= len(text) or p - i > MAX_DEPTH:
        return None
    if _BRACKET_PREFIX.match(text, i + 1).end() < p:  # type: ignore[union-attr]
        return None
    last = text[_last_non_ws(text, i, p)]
    c = text[p]
    if c not in _REJECTS[last]:
        if not ("a" <= c <= "z" or "A" <= c <= "Z"):
            return None
        if last == "{":  # an unquoted key, or a word cut off by the end of the text
            if _IDENT_KEY.match(text, p) or _IDENT_PARTIAL.fullmatch(text, p):
                return None
        elif last in "[," and (_LITERAL.match(text, p) or _WORD_TO_END.match(text, p)):
            return None
    opened: list[int] = []
    for m in _BRACKETS.finditer(text, i, p):
        if m.group() in "[{":
            opened.append(m.start())
        else:
            opened.pop()
    return Rejected(i, p, tuple(opened))
