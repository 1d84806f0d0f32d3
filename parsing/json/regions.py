"""The end of a fence or tag region read by `json.snippets.match_enclosed` (its closer after
the last value, a fence's whole run of closing characters), its snippets, and a body our
passes cannot decode (json-repair's reading, or opaque text); the end of a bare region
nested too deep to decode (`balanced_end`)."""

from __future__ import annotations

import re

from parsing.blocks import Origin
from parsing.json.repair_fallback import repair_last_resort
from parsing.json.scan import Source
from parsing.json.tolerant import Decoded
from parsing.regions import PENDING, Found, Match, Opaque, Snippet
from parsing.resume import active as active_resumes


def snippet_of(span: tuple[int, int], d: Decoded, origin: Origin, suspect: bool = False) -> Snippet:
    return Snippet(
        span[0], span[1], d.start, d.end, origin, d.value, not d.truncated, d.repaired, suspect,
        d.fixes,
    )  # fmt: skip


def closing_end(src: Source, pos: int, close: str, line_close: re.Pattern[str] | None) -> int:
    """Where the region ends after its last value at ``pos``."""
    text = src.text
    after = src.skip_ws(pos, comments=True)
    if not src.at_end(after) and text.startswith(close, after):
        return run_end(src, after + len(close), close)
    if line_close is not None:
        m = line_close.search(text, pos)
        if m is not None:
            return run_end(src, m.end(), close)
    else:
        at = text.find(close, pos)
        if at >= 0:
            return at + len(close)
    src.at_end(src.n)  # the closer may still come
    return pos


def run_end(src: Source, end: int, close: str) -> int:
    """A fence closer swallows its whole run of fence characters."""
    if close[0] not in "`~":
        return end
    text = src.text
    while not src.at_end(end) and text[end] == close[0]:
        end += 1
    return end


def undecodable(
    text: str,
    open_start: int,
    v: int,
    close: str,
    origin: Origin,
    eof: bool,
    repair: bool,
    line: re.Pattern[str] | None,
) -> Match:
    """A body our passes cannot decode: json-repair's reading of it up to the closer (a
    closing fence line for fences), else opaque text."""
    fence = close[0] in "`~"
    if not repair:
        return Opaque(v, close, fence=fence, line=line)
    if line is not None:
        m = line.search(text, v)
        if m is not None and m.end() == len(text) and not eof:
            return PENDING  # the closing line may still grow ("```" then "x")
        at, close_end = (m.start(), m.end()) if m is not None else (-1, -1)
    else:
        at = text.find(close, v)
        close_end = at + len(close)
    if at < 0 and not eof:
        return PENDING
    body_end = at if at >= 0 else len(text)
    reading = repair_last_resort(text[v:body_end], end=body_end)
    if reading is None:
        return Opaque(v, close, fence=fence, line=line)
    value, suspect = reading
    end = close_end if at >= 0 else body_end
    cut_off = at < 0  # no closer before the end of the reply: the body may be cut off
    fixes = frozenset({"json_repair"})
    d = Decoded(value, v, body_end, repaired=True, truncated=cut_off, fixes=fixes)
    return Found((snippet_of((open_start, end), d, origin, suspect),), end)


_STRUCTURE = re.compile(r'["\\\[\]{}]')


def balanced_end(text: str, i: int) -> int:
    """End of the bracket region opened at ``i`` (string-aware, linear), or -1 if unclosed.
    While streaming, the count of an unclosed region resumes where the last look stopped."""
    resumes = active_resumes()
    saved = None if resumes is None else resumes.balanced.get(i)
    scan_from, depth, in_string, skip = (i, 0, False, -1) if saved is None else saved
    for m in _STRUCTURE.finditer(text, scan_from):
        at, c = m.start(), m.group()
        if at == skip:
            continue
        if in_string:
            if c == "\\":
                skip = at + 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 0:
                return at + 1
    if resumes is not None:
        resumes.balanced[i] = (len(text), depth, in_string, skip)
    return -1
