"""JSON snippets: decoding one value (strict -> our repairs -> json-repair) and the two JSON
parsers that use it, bare JSON in prose and the JSON body of an enclosing region (a fence or a
<tool_call> tag, see `fences` and `xml_snippets`).

Decoding order for a value starting at ``{`` or ``[``:

1. strict: ``json.JSONDecoder.raw_decode`` (C speed, finds the value's string-aware end);
   then the lossless pass at C speed (`lossless.lossless_at`: orjson finds the end, fixes
   trailing commas, comments, Python literals, raw control characters), which answers only
   where the tolerant pass would read the same; where strict JSON failed right after a quote
   the tolerant pass keeps as a character, the value decoded again with those quotes escaped
   (`escaped_quotes`: the tolerant pass's own decisions, its answer or None; in a fence or
   tag, the code-in-values reading goes on from the default one's rejection);
2. our tolerant pass (`json.tolerant`): lossless fixes, cut-off closing, unambiguous
   heuristics — never drops a string character; its strictly valid containers and string
   stretches are read at C speed (`json.strict`) where its rules provably read the same;
3. only inside a ```json fence or a tool-call tag (where the model declared JSON): json-repair,
   bounded, its output checked by the fidelity guard (`repair_fallback`).

Bare JSON in prose never reaches json-repair: a ``{`` in prose that our passes cannot decode
is prose (java code, ``{x}`` in a sentence).
"""

from __future__ import annotations

import json
import re
from typing import Any

from parsing.blocks import Origin
from parsing.json.code_values import code_first, code_in_values, escaped_in_region
from parsing.json.escaped_quotes import escaped_quotes_at
from parsing.json.lossless import lossless_at, lossless_loads, may_load, surely_unfixed
from parsing.json.regions import balanced_end, closing_end, snippet_of, undecodable
from parsing.json.scan import WS_COMMENTS, NeedMore, Source
from parsing.json.shortcuts import (
    _bracket_for_key,
    _cut_at_once,
    _no_closer_yet,
    _object_start,
    bracket_prefix_reject,
    closer_run_end,
)
from parsing.json.strict import early_failure, early_match
from parsing.json.tolerant import Decoded, Rejected, parse_tolerant
from parsing.regions import PENDING, Found, Match, NoMatch, Opaque, Snippet, _Pending
from parsing.resume import active as active_resumes


def _no_constants(name: str) -> Any:
    raise ValueError(f"not JSON: {name}")


_STRICT = json.JSONDecoder(parse_constant=_no_constants)
_scan_once = _STRICT.scan_once  # type: ignore[attr-defined]


def strict_at(text: str, i: int) -> tuple[Any, int] | None:
    """Strictly decode the JSON value at ``text[i]``: ``(value, end)`` or None."""
    read = _strict(text, i)
    return read if isinstance(read, tuple) else None


def _strict(text: str, i: int, *, streaming: bool = False) -> tuple[Any, int] | bool | None:
    """`strict_at`, or on failure whether the lossless pass may fix the first error (the
    character there is one it fixes: the closer after a trailing comma, a comment, a
    Python literal, a raw control character, a backslash before one).

    ``streaming``: None when the text so far is a valid JSON prefix that the end of the text
    cut (the value is still streaming in: every pass would need more text).

    ``raw_decode`` on the whole reply would cost O(i) per failure (its error computes a
    line and column from the start of the text), so it runs on a window that grows only
    while the failure is due to the window's own end. (orjson was tried here: with the
    window bookkeeping it was slower than json's C scanner.)
    """
    n, width = len(text), 4096
    if text[i] == "{":  # no quoted key: the decoder fails right there (its error costs more)
        j = _JSON_WS.match(text, i + 1).end()  # type: ignore[union-attr]
        # (near the end too, unless the decoder's error there reads as a cut-off token)
        if (
            text[j : j + 1] not in ('"', "}")
            and j - i < 4000
            and (n - j > 6 or (j < n and not (streaming and _PARTIAL_TOKEN.match(text, j))))
        ):
            at = text[j]
            return at in _LOSSLESS_FIRST or at < " "
    last = _LAST_FAILED[0]  # (a pending candidate is tried again at each look)
    if streaming and last is not None and last[1] == i and text.startswith(last[0]):
        _FAILED[0] = (text, i, last[2], last[3])
        return last[4]
    early = early_match(text, i)  # (where the scanner fails, without its error: it costs)
    if early is not None:
        pos, why = early_failure(early)
        if streaming and pos >= n - 6 and _PARTIAL_TOKEN.match(text, pos):
            return None  # (a key cut off by the end of the text, as below)
        _FAILED[0] = (text, i, pos, why)
        at = text[pos]
        return at in _LOSSLESS_FIRST or at < " "
    while True:
        stop = min(n, i + width)
        window = text if i == 0 and stop == n else text[i:stop]
        try:  # (at a bracket: `raw_decode`'s scanner, without its Python frame)
            opener = window[:1] in ("{", "[")
            value, end = _scan_once(window, 0) if opener else _STRICT.raw_decode(window)
            return value, i + end
        except StopIteration as err:  # (`raw_decode`'s error for it, without building one)
            msg, pos = "Expecting value", err.value
        except json.JSONDecodeError as exc:
            msg, pos = exc.msg, exc.pos
        except (ValueError, RecursionError):
            return True
        cut = msg.startswith("Unterminated string") or pos >= len(window) - 6
        if streaming and stop >= n and cut and _PARTIAL_TOKEN.match(window, pos):
            return None
        if stop >= n or not cut:
            at = window[pos : pos + 1]
            _FAILED[0] = (text, i, i + pos, msg)
            answer = at != "" and (at in _LOSSLESS_FIRST or at < " ")
            if streaming and not cut:
                _LAST_FAILED[0] = (text, i, i + pos, msg, answer)
            return answer
        width *= 8


_LOSSLESS_FIRST = frozenset("]}/TFN\\")
_LAST_FAILED: list[tuple[str, int, int, str, bool] | None] = [None]
"""The last streamed failure not due to the end of the text: (text, start, where, why, the
answer). json's scanner reads left to right and looks at most a few characters past where
it fails (a literal, a number, a ``\\u`` escape: what the 6-character slack covers), so the
next try of the same start on a text that extends that one fails the same way."""
_FAILED: list[tuple[str, int, int, str] | None] = [None]
"""The last strict failure `_strict` saw: (text, start, where, why), replaced whole (one
read sees one failure); `decode_at` hands it to the pass after it (no second decoding to
find the same error)."""
_JSON_WS = re.compile(r"[ \t\n\r]*+")
_WS = re.compile(r"\s*+")
"""What `Source.skip_ws` skips (without comments)."""
_PARTIAL_TOKEN = re.compile(r'(?:"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+\\?+|[\w.+-]*+)\Z')
"""What a cut-off value may end with at the error: an open string, a literal or number."""


def decode_at(
    text: str, i: int, *, eof: bool = True, marker: str | None = None, lossless: bool | None = None
) -> Decoded | Rejected:
    """Decode the object/array starting at ``text[i]`` (raises `NeedMore` while streaming).

    ``lossless`` not None: the caller already ran the strict pass, which failed, and says
    whether the lossless pass may fix the first error (the tolerant pass reads the same)."""
    fast = _fast_decode(text, i, eof, marker, lossless)
    if fast is None and marker is None:
        fast = bracket_prefix_reject(text, i, _failure(text, i))
    return fast if fast is not None else parse_tolerant(text, i, eof=eof, marker=marker)


def _decode_enclosed(
    text: str, v: int, eof: bool, close: str, lossless: bool | None
) -> Decoded | Rejected:
    """`decode_at` for a document of a fence or tag, then, if the default reading rejects
    it, the reading with code in its values (`code_in_values`). A whole reply reads the
    latter first when it tells what the former gives (`code_first`): one reading, not two."""
    fast = _fast_decode(text, v, eof, close, lossless, region=True)
    if fast is not None:
        return fast
    if eof and active_resumes() is None:
        first = code_first(text, v, close)
        if first is not None:
            return first
    d = parse_tolerant(text, v, eof=eof, marker=close)
    return code_in_values(text, v, eof, close) if isinstance(d, Rejected) else d


def _fast_decode(
    text: str,
    i: int,
    eof: bool,
    marker: str | None,
    lossless: bool | None,
    region: bool = False,
) -> Decoded | Rejected | None:
    """`decode_at`'s strict, lossless and escaped-quote readings, or the tolerant pass's
    rejection found by the last (None: the tolerant pass's turn). ``region``: a document of
    a fence or tag body ending at ``marker``: `_decode_enclosed`'s answer (the code reading
    when the default one is rejected)."""
    if lossless is None:
        read = _strict(text, i)
        if isinstance(read, tuple):
            return Decoded(read[0], i, read[1], repaired=False, truncated=False)
        lossless = read
    fast = lossless_at(text, i) if lossless and not _lossless_fails(text, i) else None
    if fast is not None:
        value, end, fixes = fast
        return Decoded(value, i, end, repaired=bool(fixes), truncated=False, fixes=fixes)
    error = None if lossless or not eof else _failure(text, i)
    if error is None or active_resumes() is not None:  # (a stream's look resumes instead)
        return None
    if region and marker is not None:
        return escaped_in_region(text, i, error, marker)
    return escaped_quotes_at(text, i, error, marker)


def _failure(text: str, i: int) -> tuple[int, str] | None:
    """Where and why `_strict` failed on ``text[i:]``, if that was its last failure."""
    failed = _FAILED[0]
    if failed is None or failed[0] is not text or failed[1] != i:
        return None
    return failed[2], failed[3]


def _lossless_fails(text: str, i: int) -> bool:
    """Does the lossless pass surely answer None where `_strict` failed on ``text[i:]``?"""
    failed = _failure(text, i)
    return failed is not None and surely_unfixed(text, i, failed[0])


def match_bare_at(text: str, i: int, eof: bool) -> Match:
    """Bare JSON at ``text[i]`` (``{`` or ``[``): a snippet, or `NoMatch` with the nested
    candidates that would fail the same way.

    An object must start like one (``{}`` or a key then ``:``); a region nested deeper than
    `MAX_DEPTH` is text up to its balancing bracket.
    """
    if text[i] == "{":
        early = _object_start(text, i, eof)
        if early is not None:
            return early
    strict = _strict(text, i, streaming=not eof)
    if strict is None:
        return PENDING  # a valid prefix: still streaming in
    if isinstance(strict, tuple):  # the common case, without the intermediate `Decoded`
        value, end = strict
        return Found((Snippet(i, end, i, end, "bare_json", value, True, False, False),), end)
    if not strict:  # (the lossless pass has nothing to fix there)
        early = _bracket_for_key(text, i, _failure(text, i))
        if early is not None:
            return early
    try:
        d = decode_at(text, i, eof=eof, lossless=strict)
    except NeedMore:
        return PENDING
    if isinstance(d, Rejected):
        if d.too_deep:
            end = balanced_end(text, i)
            if end < 0 and not eof:
                return PENDING
            return NoMatch(resume=end if end >= 0 else len(text))
        return NoMatch(tuple(p for p in d.open_starts if p != i))
    if isinstance(d.value, dict | list) and not d.value and d.truncated and d.end - i < 3:
        return NoMatch()  # a lone "{" or "[" at the very end: no evidence of JSON
    return Found((snippet_of((i, d.end), d, "bare_json"),), d.end)


def match_enclosed(
    text: str,
    open_start: int,
    body_start: int,
    close: str,
    origin: Origin,
    eof: bool,
    *,
    repair: bool,
    line_close: re.Pattern[str] | None = None,
) -> Match:
    """The JSON value(s) between an opener (fence, tag) and its ``close`` marker.

    Values are read string-aware, so a marker inside a JSON string does not end the region.
    The snippets tile ``[open_start, end)`` where ``end`` is past the closing marker when it
    follows the last value (possibly after junk, when ``line_close`` finds it on a line of
    its own), else the last value's end. Undecodable bodies become `Opaque` text (after
    json-repair when ``repair``).
    """
    if _no_closer_yet(text, body_start, close, eof, repair):
        return PENDING
    v = WS_COMMENTS.match(text, body_start).end()  # type: ignore[union-attr]
    opened = text[v : v + 1] in ("{", "[")
    cut = _cut_at_once(text, v, close, eof) if opened else None
    if cut is not None:  # (what the general loop below reads there: see `_cut_at_once`)
        if isinstance(cut, _Pending):
            return PENDING
        end = closer_run_end(text, cut.end, close, eof)
        if end < 0:
            return PENDING
        return Found((snippet_of((open_start, end), cut, origin),), end)
    fast: Match | bool | None = _whole_body(text, open_start, body_start, close, origin, eof)
    if fast is None:
        fast = _one_strict_value(text, open_start, body_start, close, origin, eof)
    if fast is not None and not isinstance(fast, bool):
        return fast
    first = fast  # the strict reading of the first value failed: whether lossless may fix it
    src = Source(text, eof, close)
    try:
        found: list[Decoded] = []
        pos = body_start
        while True:
            v = src.skip_ws(pos, comments=True)
            if src.ended(v) or text[v] not in "{[":
                break
            d = _decode_enclosed(text, v, eof, close, None if found else first)
            if isinstance(d, Rejected):
                if found:
                    break
                if not eof and text.find(close, body_start) < 0 and may_load(text[body_start:]):
                    return PENDING  # `_whole_body` may read it once the closer comes
                return undecodable(text, open_start, v, close, origin, eof, repair, line_close)
            found.append(d)
            pos = d.end
            if d.truncated:
                break
        if not found:
            return Opaque(body_start, close, fence=close[0] in "`~", line=line_close)
        end = closing_end(src, pos, close, line_close)
    except NeedMore:
        return PENDING
    last = max(end, found[-1].end)
    if len(found) == 1:  # (the commonest: one value)
        return Found((snippet_of((open_start, last), found[0], origin),), last)
    bounds = [open_start] + [d.end for d in found[:-1]] + [last]
    snippets = tuple(snippet_of((bounds[k], bounds[k + 1]), d, origin) for k, d in enumerate(found))
    return Found(snippets, last)


def _whole_body(
    text: str,
    open_start: int,
    body_start: int,
    close: str,
    origin: Origin,
    eof: bool,
) -> Found | _Pending | None:
    """Fast path: the body up to the first closer is exactly one valid JSON value (orjson).

    Sound because a valid object/array ends at its own matching bracket: if the whole
    slice parses, the string-aware reading ends at the same place. The first closer and the
    body before it stay what they are whatever text follows, so while streaming this answer
    waits for the closer's whole run (PENDING), and an undecodable body waits for the first
    closer (`match_enclosed`): the general loop, which may read otherwise (a raw newline in
    a key), never decides in the stream what this reads in the whole reply.
    """
    at = text.find(close, body_start)
    if at < 0:
        return None
    last = at - 1
    while last > body_start and text[last] in " \t\r\n":
        last -= 1
    if text[last] not in "}]":
        return None  # not one object or array up to the closer (it may lie in a string)
    body = text[body_start:at]
    fixed = lossless_loads(body)
    if fixed is None:
        return None
    value, fixes = fixed
    if not isinstance(value, dict | list):
        return None
    end, n = at + len(close), len(text)
    if close[0] in "`~":  # (`run_end`, inlined: the closer's whole run)
        while end < n and text[end] == close[0]:
            end += 1
        if end >= n and not eof:
            return PENDING  # the run may still grow (this reading holds whatever follows)
    v = _WS.match(text, body_start).end()  # type: ignore[union-attr]
    d = Decoded(value, v, last + 1, repaired=bool(fixes), truncated=False, fixes=fixes)
    return Found((snippet_of((open_start, end), d, origin),), end)


def _one_strict_value(
    text: str, open_start: int, body_start: int, close: str, origin: Origin, eof: bool
) -> Match | bool | None:
    """Fast path: the body is one strictly valid value, then the closer (the general loop of
    `match_enclosed` gives the same answer there, in fewer steps). A bool: the first value
    is not strictly valid, and whether the lossless pass may fix it (see `_strict`)."""
    v = WS_COMMENTS.match(text, body_start).end()  # type: ignore[union-attr]
    if text[v : v + 1] not in ("{", "["):
        return None
    read = _strict(text, v, streaming=not eof)
    if read is None:
        return PENDING  # a valid prefix: still streaming in (no closer outside its strings)
    if not isinstance(read, tuple):
        return read
    strict = read
    value, stop = strict
    after = WS_COMMENTS.match(text, stop).end()  # type: ignore[union-attr]
    if not text.startswith(close, after):
        if not eof and close.startswith(text[after:]):
            # the end of the text, or a closer cut by it, after the value: the general loop
            # reads this value again and needs more text there (`Source.ended`)
            return PENDING
        return None
    end, n = after + len(close), len(text)
    if close[0] in "`~":
        while end < n and text[end] == close[0]:
            end += 1
        if end >= n and not eof:
            return PENDING  # the closing run may still grow
    return Found((Snippet(open_start, end, v, stop, origin, value, True, False, False),), end)
