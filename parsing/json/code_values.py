"""A fence or tag body read with code in its string values (``code_in_values``), and whether
the default reading can be skipped.

A document of a fence or tag that the default tolerant reading rejects is read again with
code in its values: in an object value holding lines, a quote followed by ``:`` (past
whitespace and comments) is a character (``{"c": None}`` in a file's content). That is the
only decision the two readings take differently: the default reading ends the string at such
a quote, and then rejects the document at once (a ``:`` where a value ends). So the code
reading, read first, tells what the default one gives:

- it kept no such quote: the default reading takes every decision it takes, and gives the
  same result (`Decoded` or `Rejected`);
- it kept one: the default reading ends that string there and is rejected (when no string
  was cut off for a missing quote: that reading is then read again otherwise).

A fence or tag with code in its values is then read once instead of twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from parsing.json.escaped_quotes import escaped_region_at
from parsing.json.scan import Source
from parsing.json.tolerant import Decoded, Rejected, _parse, _Parser, parse_tolerant

_QUOTE_THEN = {q: re.compile(q + r"\s*+[:/]") for q in "\"'"}
"""A quote then ``:`` or a comment (the candidates, checked one by one)."""


@dataclass(slots=True)
class _Tracked(_Parser):
    """The code reading, noting whether it kept a quote that the default reading ends at."""

    diverged: bool = False
    unknown: bool = False

    def _string(self, i: int, ctx: str) -> tuple[str, int]:
        value, j = _Parser._string(self, i, ctx)
        if ctx == "o" and not self.diverged and self._holds_lines(i):
            if j < 0 or self.cuts:
                self.unknown = True  # (cut off: the kept quotes run on past ``j``)
            else:
                self.diverged = self._colon_after_kept(i, j - 1)
        return value, j

    def _colon_after_kept(self, i: int, end: int) -> bool:
        """Is a quote of the string body ``text[i + 1 : end]`` (every unescaped one was kept)
        followed by ``:``, past whitespace and comments?"""
        src, text = self.src, self.src.text
        for m in _QUOTE_THEN[text[i]].finditer(text, i + 1, end):
            k = at = m.start()
            while text[at - 1] == "\\":
                at -= 1
            if (k - at) % 2 == 0:  # not escaped
                j = src.skip_ws(k + 1, comments=True)
                if j < src.n and text[j] == ":":
                    return True
        return False


def code_first(text: str, v: int, close: str) -> Decoded | Rejected | None:
    """What the default reading then, when it is rejected, the code reading give for the
    document at ``text[v]`` of a complete fence or tag body ending at ``close`` (see
    `code_in_values`), read once; None when unknown (a string cut for a missing quote)."""
    src = Source(text, True, close)
    parser = _Tracked(src, v, {}, True)
    reading = _parse(src, parser)
    if parser.cuts or parser.unknown:
        return None
    if not parser.diverged:
        return reading  # the default reading's
    return _to_region_end(text, v, True, close, reading)


def code_in_values(text: str, v: int, eof: bool, close: str) -> Decoded | Rejected:
    """A document of a fence or tag that the default reading rejected, read again with code
    in its string values (unescaped quotes before ``:``, as in ``{"c": None}``): kept only when
    it reads to the end of its region, complete (the region's extent vouches for it)."""
    d = parse_tolerant(text, v, eof=eof, marker=close, code_in_values=True)
    return _to_region_end(text, v, eof, close, d)


def escaped_in_region(
    text: str, v: int, error: tuple[int, str], close: str
) -> Decoded | Rejected | None:
    """What the default reading, then (when it is rejected) the code reading give for the
    document at ``text[v]`` of a complete fence or tag body, read with its inner quotes
    escaped (`escaped_region_at`; ``error``: where and why strict JSON failed on it); None:
    left to the tolerant readings. A rejection of the default reading at a quote the code
    reading keeps goes on as the code reading; any other is the code reading's too."""
    reading, coded = escaped_region_at(text, v, error, close)
    if not coded:
        return reading
    if reading is None:  # the default reading was rejected: the code reading's turn
        return code_in_values(text, v, True, close)
    return _to_region_end(text, v, True, close, reading)


def _to_region_end(
    text: str, v: int, eof: bool, close: str, d: Decoded | Rejected
) -> Decoded | Rejected:
    if isinstance(d, Rejected) or d.truncated:
        return d
    src = Source(text, eof, close)
    if not src.ended(src.skip_ws(d.end, comments=True)):
        return Rejected(v, d.end)
    return d
