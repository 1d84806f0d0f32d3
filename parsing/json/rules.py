"""The decision rules of the tolerant JSON decoder (`json.tolerant`): its token patterns,
the regular expressions that pass quotes which can never end a string at C speed, and the
pure rules for closer runs that do not match the open brackets.

Every repetition is possessive (``*+``) or atomic: a failed match never backtracks, so each
costs linear time (see `json.snippets`).
"""

from __future__ import annotations

import re
from typing import Any, Final

_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERAL = re.compile(r"(?:true|false|null|True|False|None)(?![\w$])")
_LITERALS: Final[dict[str, Any]] = {
    "true": True,
    "false": False,
    "null": None,
    "True": True,
    "False": False,
    "None": None,
}
# Possessive repetitions (``*+``): a failed match never backtracks (linear, see json.snippets).
_IDENT_KEY = re.compile(r"[A-Za-z_$][\w$.-]*+(?=\s*+:)")
_IDENT_PARTIAL = re.compile(r"[A-Za-z_$][\w$.-]*+\s*+")
_KEY_AHEAD_RE = r"(?>\"(?:[^\"\\\n]|\\.)*+\"|'(?:[^'\\\n]|\\.)*+'|[A-Za-z_$][\w$.-]*+)\s*+:"
# (a quoted key cut after a lone backslash is partial too: its next character may be any;
# the group marks that case, which `_Parser._key_ahead` does not count at the end of a reply;
# "(?:x|)", not "(?:x)?": a repeated group costs the regexes built on this 10% more)
_KEY_PARTIAL_RE = (
    r"(?>\"(?:[^\"\\\n]|\\.)*+(?:\"|(\\)\Z|)|'(?:[^'\\\n]|\\.)*+(?:'|(\\)\Z|)"
    r"|[A-Za-z_$][\w$.-]*+)\s*+\Z"
)
_KEY_AHEAD = re.compile(_KEY_AHEAD_RE)
_KEY_PARTIAL = re.compile(_KEY_PARTIAL_RE)
# What follows a quote inside a value that `_Parser._quote_ends` surely answers False to,
# whatever the open brackets (ctx "a": array element, "o": object value): a character that
# never follows a string's end (after optional whitespace), or a comma then what cannot
# start the next element / key. Marker characters, comments, closers and the end of the text
# are left to `_quote_ends`. Such quotes are kept as characters inside the regex engine.
_NO_KEY = rf"(?!{_KEY_AHEAD_RE}|{_KEY_PARTIAL_RE})"
_NEVER_ENDS = {
    ("a", False): r"\s*+(?:[^\s,}\]:/`~<]|,\s*+[^\s\"'{\[\]\-0-9tfnTFN`~<])",
    ("o", False): rf"\s*+(?:[^\s,}}\]:/\"'`~<]|,\s*+(?=[^\s}}`~<]){_NO_KEY}|(?=[\"']){_NO_KEY})",
    # lines of code in an object value (``code_in_values``): a quote before ``:`` is kept too
    ("o", True): rf"\s*+(?:[^\s,}}\]/\"'`~<]|,\s*+(?=[^\s}}`~<]){_NO_KEY}|(?=[\"']){_NO_KEY})",
}
_NEVER_ENDS["a", True] = _NEVER_ENDS["a", False]
_VALUE_RUNS = {
    (quote, ctx, code): re.compile(
        rf"[^{quote}\\]*+(?:(?:\\[\s\S]|{quote}(?={never}))[^{quote}\\]*+)*+"
    )
    for quote in "\"'"
    for (ctx, code), never in _NEVER_ENDS.items()
}
"""A value's body up to its next quote that may end it (the quotes passed over are kept)."""
_NEVER = {key: re.compile(never) for key, never in _NEVER_ENDS.items()}
# With no array open, a quote then a lone ``]`` then a character that neither continues nor
# ends a document (``x["k"] = 1`` in code) never ends the string either: the ``]`` closes
# nothing (`_closer_run_fits`). The regexes used while no ``[`` is open pass such quotes too.
_LONE_BRACKET = r"|\s*+\](?=\s*+[^\s,\"'`~</\]}])"
_VALUE_RUNS_FLAT = {
    (quote, ctx, code): re.compile(
        rf"[^{quote}\\]*+(?:(?:\\[\s\S]|{quote}(?={never}{_LONE_BRACKET}))[^{quote}\\]*+)*+"
    )
    for quote in "\"'"
    for (ctx, code), never in _NEVER_ENDS.items()
}
_NEVER_FLAT = {key: re.compile(never + _LONE_BRACKET) for key, never in _NEVER_ENDS.items()}
# With one array open and nothing else (a bare ``[`` candidate), a quote then a ``}`` (it
# closes nothing), more closers and a comma or a character that is neither a quote nor may
# start a comment or a region's end never ends an element either: `_closer_run_fits` finds
# no reading of the run that leaves a bracket open or closes the array (``["x"}, "y"}``).
# (What follows a comma is required only so that the decision never waits for more text.)
_LONE_BRACE = r"|\s*+\}[\s}\]]*+(?:,\s*+[^\s/`~<]|[^\s,\"'`~</])"
_VALUE_RUNS_ARRAY = {
    (quote, ctx, code): re.compile(
        rf"[^{quote}\\]*+(?:(?:\\[\s\S]|{quote}(?={never}{_LONE_BRACE}))[^{quote}\\]*+)*+"
    )
    for quote in "\"'"
    for (ctx, code), never in _NEVER_ENDS.items()
    if ctx == "a"
}
_NEVER_ARRAY = {
    key: re.compile(never + _LONE_BRACE) for key, never in _NEVER_ENDS.items() if key[0] == "a"
}
_UNQUOTED_STOP = re.compile(r"[,{}\[\]\n`~<]")
_VALUE_START: Final = frozenset("\"'{[-0123456789tfnTFN")
_MAY_FOLLOW_END: Final = frozenset(" \t\r\n\f\v,}]:/\"'`~<")
"""What may follow a string's closing quote (whitespace, comments, a region's closer...)."""
_CLOSER: Final = {"{": "}", "[": "]"}
_OPENER: Final = {"}": "{", "]": "["}
_SPARSE: Final = 64
"""Quotes kept as characters less than this far apart, three in a row, are dense (code with
unescaped quotes): `_kept_quotes` passes such runs in one regex; sparse ones are read
stretch by stretch by the strict reader (C speed, decoding included)."""
_RUN_CHARS: Final = frozenset(" \t\r\n}]")


def _resolve_continuing(kinds: list[str], run: list[str], nxt: str) -> int | None:
    """How many brackets stay open after a mismatched closer run followed by ``,``.

    Two readings: each closer closes the nearest bracket of its kind (a closer was
    forgotten: ``["Mrs."},``) or the run closes exactly ``len(run)`` brackets (closers
    swapped: ``}]}``). The first whose remaining innermost bracket can take the element
    that follows the comma wins.
    """
    sequential: list[str] | None = list(kinds)
    for closer in run:
        assert sequential is not None
        opener = "{" if closer == "}" else "["
        if opener not in sequential:
            sequential = None
            break
        del sequential[len(sequential) - 1 - sequential[::-1].index(opener) :]
    readings = [sequential, kinds[: max(0, len(kinds) - len(run))]]
    for reading in readings:
        if reading and _fits(reading[-1], nxt):
            return len(reading)
    return None


def _closes_root(kinds: list[str], run: list[str]) -> bool:
    """Does the closer run close the outermost bracket: each closer closing the nearest bracket
    of its kind, or the run closing all of them in another order (swapped closers)?"""
    if sorted(run[: len(kinds)]) == sorted(_CLOSER[kind] for kind in kinds):
        return True
    open_ = list(kinds)
    for closer in run:
        opener = "{" if closer == "}" else "["
        if opener not in open_:
            return False
        del open_[len(open_) - 1 - open_[::-1].index(opener) :]
        if not open_:
            return True
    return False


def _fits(kind: str, nxt: str) -> bool:
    if kind == "[":
        return nxt in _VALUE_START or nxt == ""
    return nxt in "\"'}" or nxt == "" or nxt.isalpha() or nxt in "_$"


def _depth(value: Any) -> int:
    """Nesting depth of a decoded value (a scalar: 0)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            items = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in items)
    return deepest


def _number(token: str) -> int | float:
    if any(ch in token for ch in ".eE"):
        return float(token)
    return int(token)
