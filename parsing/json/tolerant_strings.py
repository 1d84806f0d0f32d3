"""The tolerant parser's strings: where a quote ends a string (SPEC §3).

A ``"`` inside a string value that cannot end it (it is not followed by ``,`` ``}`` ``]``
``:`` in a position that makes sense) is kept as a character; a run of closers after a quote
ends the string only when the document can go on after it (`_closer_run_fits`); a missing
comma is seen as a key ahead (`_key_ahead`); a string missing its closing quote, when its line
ends with a closer, is retried ended there (`_Cut`); in a value holding lines of code a quote
before ``:`` is a character (``code_in_values``). Strictly valid stretches of a string body
are read at C speed (`strict_string`), runs of kept quotes in one regex (`_kept_quotes`).

`StringReader` holds these decisions; `tolerant._Parser`, the grammar's state machine,
extends it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from parsing.json.rules import (
    _KEY_AHEAD,
    _KEY_PARTIAL,
    _MAY_FOLLOW_END,
    _NEVER,
    _NEVER_ARRAY,
    _NEVER_FLAT,
    _SPARSE,
    _VALUE_RUNS,
    _VALUE_RUNS_ARRAY,
    _VALUE_RUNS_FLAT,
    _VALUE_START,
    _closes_root,
    _resolve_continuing,
)
from parsing.json.scan import (
    WS_COMMENTS,
    NeedMore,
    Source,
    decode_segment,
    next_found,
    run_pattern,
    split_at_quotes,
)
from parsing.json.strict import strict_string


@dataclass(slots=True)
class _Frame:
    kind: str
    start: int
    container: Any
    key: str | None = None
    after_comma: bool = False


class _Reject(Exception):
    """Not decodable: ``args[0]`` is where (Exception's own ``__init__``: no Python frame)."""


class _TooDeep(_Reject):
    """Nesting past `tolerant.MAX_DEPTH` at ``args[0]``."""


class _Cut(Exception):
    """Restart with the string opened at ``string_start`` ended at ``pos`` (missing quote)."""

    def __init__(self, string_start: int, pos: int) -> None:
        self.string_start = string_start
        self.pos = pos


class StringReader:
    """Where the tolerant parser's strings end (the `tolerant._Parser` state it reads is
    declared here; the parser is a dataclass holding it, in slots)."""

    src: Source
    cuts: dict[int, int]
    code_in_values: bool
    strict_reads: bool
    stack: list[_Frame]
    fixes: set[str]
    _next_escape: int
    _next_newline: int
    _tail: int
    string_at: tuple[int, int, list[str], int, bool, bool] | None
    cut_off: tuple[int, str | None]

    def _key_ahead(self, i: int) -> bool:
        text = self.src.text
        if _KEY_AHEAD.match(text, i):
            return True
        # a key still being typed at the end of the text counts (it is cut off there); at
        # the end of a reply, not one cut after a lone backslash (its group: see json.rules)
        m = _KEY_PARTIAL.match(text, i)
        return m is not None and self.src.at_end(self.src.n) and m.lastindex is None

    def _string(self, i: int, ctx: str) -> tuple[str, int]:
        """Read the string opened at ``i``: (value, index after it), or ("", -1) when the text
        ends inside it (the document is then closed as truncated at `cut_off`).

        ``ctx``: "k" key, "o" object value, "a" array element.
        """
        src, text, quote = self.src, self.src.text, self.src.text[i]
        if quote == "'":
            self.fixes.add("single_quotes")
        cut = self.cuts.get(i, -1)
        segments: list[str] = []  # raw bodies between the inner quotes kept as characters
        code = self.code_in_values and self._lines_ahead(i)  # see `_quote_ends`
        # a value's quotes that cannot end it are passed over at C speed (`_kept_quotes`); a
        # key ends at its first quote, and a retried string goes quote by quote
        fast = ctx != "k" and cut < 0
        strict = quote == '"' and cut < 0 and self.strict_reads  # C speed (see below)
        run = run_pattern(quote).match
        j, dense = i + 1, 0
        resumed, self.string_at = self.string_at, None
        if resumed is not None and resumed[0] == i:  # a reading resumed (parsing/resume.py)
            _, j, segments, dense, strict, fast = resumed
        # where a reading stopped by `NeedMore` resumes: the start of its last step. Every
        # earlier step was decided from characters the text held (a decision that needs more
        # raises), so a fresh reading of a longer text reaches that point in the same state;
        # but for the switch to quote-by-quote reading when a lone backslash ends the text
        # inside a run of kept quotes: the mode before it is the one kept
        mark: tuple[int, int, int, bool, bool] | None = None
        try:
            while True:
                if fast or mark is None:
                    mark = (j, len(segments), dense, strict, fast)
                read = strict_string(text, j) if strict and (fast or ctx == "k") else None
                if read is not None:
                    part, end = read
                    k = end - 1  # the first unescaped quote, as `run` finds it
                    if ctx == "k":
                        return part, end
                    if (
                        text[k + 1 : k + 2] in "}]"
                        or _NEVER[ctx, code is True].match(text, k + 1) is None
                    ):
                        if self._quote_ends(k, ctx, code):
                            self._no_colon_after(k, ctx)
                            head = self._joined(segments, quote, tail=True) if segments else ""
                            return head + part, end
                        segments.append(text[j:k])
                        self.fixes.add("inner_quotes")
                        j = end
                        continue
                    dense = dense + 1 if k - j < _SPARSE else 0
                    if dense < 3:  # a kept quote between long stretches: read on at C speed
                        segments.append(text[j:k])
                        self.fixes.add("inner_quotes")
                        j = end
                        continue
                    strict = False  # dense quotes (code): runs of them in one regex, below
                k = run(text, j).end()  # type: ignore[union-attr]
                # (a closer right after the quote: `_quote_ends` decides, as below)
                if fast and k < src.n and text[k] == quote and text[k + 1 : k + 2] not in "}]":
                    k = self._kept_quotes(segments, j, k, ctx, code is True)
                    if k < 0:  # a lone backslash ends the text: read on quote by quote
                        fast = False  # (`mark` keeps the fast mode: see above)
                        continue
                    if k >= src.n:  # the body goes on past the end of the text
                        j = self._tail
                        continue
                    if self._quote_ends(k, ctx, code):
                        self._no_colon_after(k, ctx)
                        return self._joined(segments, quote), k + 1
                    self.fixes.add("inner_quotes")
                    j = k + 1
                    continue
                if 0 <= cut <= k:
                    head = self._joined(segments, quote, tail=True)
                    self.fixes.add("missing_quote")
                    return head + decode_segment(text, j, cut)[0], cut
                if k >= src.n or text[k] != quote:
                    src.at_end(src.n)
                    self._unterminated(i, j, k, self._joined(segments, quote, tail=True), ctx)
                    return "", -1
                segments.append(text[j:k])
                if ctx == "k" or self._quote_ends(k, ctx, code):
                    self._no_colon_after(k, ctx)
                    return self._joined(segments, quote), k + 1
                self.fixes.add("inner_quotes")
                j = k + 1
        except NeedMore:
            assert mark is not None
            at, kept, dense, strict, fast = mark
            self.string_at = (i, at, segments[:kept], dense, strict, fast)
            raise

    def _no_colon_after(self, k: int, ctx: str) -> None:
        """The quote at ``k`` ends a value: a ``:`` after it is where the grammar rejects the
        document (`_Parser._after`, the next step, takes no colon), so reject there before
        the value is decoded (a body with unknown escapes costs more than the rest)."""
        text, marker = self.src.text, self.src.marker
        if ctx != "k" and (marker is None or marker[0] != ":"):
            j = WS_COMMENTS.match(text, k + 1).end()  # type: ignore[union-attr]
            if text[j : j + 1] == ":":
                raise _Reject(j)

    def _kept_quotes(self, segments: list[str], j: int, k: int, ctx: str, code: bool) -> int:
        """The body from ``j`` reaches a quote at ``k``: when no string can end there, pass
        it and the following such quotes in one regex run and add the body's segments.
        Returns the next quote that may end the string; the end of the text when every
        quote up to it is kept (the body goes on at ``_tail``, after the last of them); or
        -1 (a lone backslash at the end)."""
        text, quote, stack = self.src.text, self.src.text[k], self.stack
        if len(stack) == 1 and ctx == "a":  # a bare array: a lone "}" closes nothing
            never, runs = _NEVER_ARRAY[ctx, code], _VALUE_RUNS_ARRAY
        elif all(frame.kind != "[" for frame in stack):  # a lone "]" closes nothing
            never, runs = _NEVER_FLAT[ctx, code], _VALUE_RUNS_FLAT
        else:
            never, runs = _NEVER[ctx, code], _VALUE_RUNS
        if never.match(text, k + 1) is None:
            segments.append(text[j:k])
            return k
        end = runs[quote, ctx, code].match(text, k + 1).end()  # type: ignore[union-attr]
        if end >= self.src.n:  # every quote up to the end of the text is kept
            parts = split_at_quotes(text[k + 1 : end], quote)
            segments.append(text[j:k])
            segments += parts[:-1]
            self.fixes.add("inner_quotes")
            self._tail = end - len(parts[-1])
            return end
        if text[end] != quote:  # a lone backslash at the end
            return -1
        segments.append(text[j:k])
        segments += split_at_quotes(text[k + 1 : end], quote)
        self.fixes.add("inner_quotes")
        return end

    def _joined(self, segments: list[str], quote: str, tail: bool = False) -> str:
        """Decode raw string bodies separated by a kept ``quote`` (one C-speed decoding for
        the whole string, not one per inner quote); ``tail``: a kept quote follows them."""
        if not segments:
            return ""
        if len(segments) == 1 and not tail:
            body = segments[0]
        else:
            sep = '\\"' if quote == '"' else "'"
            body = sep.join(segments) + (sep if tail else "")
        value, lenient = decode_segment(body, 0, len(body))
        if lenient:
            self.fixes.add("string_characters")
        return value

    def _unterminated(self, i: int, j: int, k: int, head: str, ctx: str) -> None:
        """The text ends inside the string opened at ``i`` (body resumed at ``j``): where the
        document is cut off, and the string's value there (`cut_off`), or a retry with the
        string ended at a closer on its line (`_Cut`)."""
        text, marker = self.src.text, self.src.marker
        newline = text.find("\n", i)
        if ctx != "k" and newline >= 0 and i not in self.cuts:
            closers = [
                p for p in (text.find("}", i, newline), text.find("]", i, newline)) if p >= 0
            ]
            if closers:
                raise _Cut(i, min(closers))
        end = k
        if marker is not None:
            m = re.compile(r"\n[ \t]*" + re.escape(marker)).search(text, j)
            if m is not None:
                end = k = m.start()
        value = head + decode_segment(text, j, max(j, k))[0]
        self.cut_off = (end, value if ctx != "k" else None)  # the parser closes it all there

    def _lines_ahead(self, i: int) -> bool | None:
        """`_holds_lines`, or None while streaming when the text holds neither a ``\\n``
        escape nor a newline after ``i``: which comes first is still to come. The string is
        read as one without lines (which keeps a subset of the quotes kept with lines: only
        a quote before ``:`` is read otherwise), and the decision at a quote before ``:``
        raises `NeedMore` (`_known`): deciding "no lines" there read a document the whole
        reply reads with code in its values as rejected (stream != whole)."""
        lines = self._holds_lines(i)
        if not lines and self._next_newline >= self.src.n and not self.src.eof:
            return None
        return lines

    def _holds_lines(self, i: int) -> bool:
        """Does a ``\\n`` escape follow ``i`` on its line (a file's lines in one string)?
        Both positions are cached while they lie ahead (and across readings of one text:
        `next_found`), so the calls of a pass cost O(n)."""
        text = self.src.text
        if self._next_escape < i:
            self._next_escape = next_found(text, "\\n", i)
        if self._next_newline < i:
            self._next_newline = next_found(text, "\n", i)
        return self._next_escape < self._next_newline

    def _quote_ends(self, k: int, ctx: str, code: bool | None = False) -> bool:
        """Does the quote at ``k`` end the string, given what follows it? ``code``: the
        string holds lines of code (see ``code_in_values``; None: not known yet)."""
        src, text = self.src, self.src.text
        after = text[k + 1 : k + 2]
        if after and after not in _MAY_FOLLOW_END and not after.isspace():
            return False  # fast path: a letter, ")", ";"... after a quote inside code
        j = src.skip_ws(k + 1, comments=True)
        if src.ended(j):
            return True
        c = text[j]
        if c in "}]":
            return self._closer_run_fits(j)
        if c == ":":  # in lines of code ({"c": 1} in a file's content) a character
            return ctx == "a" or not _known(code)
        if c == ",":
            nxt_at = src.skip_ws(j + 1)
            if src.ended(nxt_at):
                return True
            nxt = text[nxt_at]
            if ctx == "a":
                return nxt in _VALUE_START or nxt == "]"
            return nxt == "}" or self._key_ahead(nxt_at)
        if ctx == "o" and c in "\"'":  # a missing comma before the next key
            if "\n" in text[k + 1 : j]:
                return self._key_ahead(j)
            if _KEY_AHEAD.match(text, j):
                return True
            if _KEY_PARTIAL.match(text, j) is not None and not src.eof:
                raise NeedMore  # the key is still streaming in: its colon decides
            return False
        return False

    def _closer_run_fits(self, j: int, kinds: list[str] | None = None) -> bool:
        """Can the run of closers at ``j`` follow a string value? Code inside a string
        (``x["k"] = 1``, ``f(a["b"])}; g()``) has closers too: the run must be followed by
        what can follow it in this document (the end, a ``,`` continuing an open container,
        a key after a missing comma), or close the whole document. Inside a fence or tag
        (the region's extent is known) a document closed so must also end the region (or
        be followed, on a later line, by another value)."""
        src, text = self.src, self.src.text
        run: list[str] = []
        last = j
        while not src.ended(j) and text[j] in "}]":
            run.append(text[j])
            last = j + 1
            j = src.skip_ws(j + 1, comments=True)
        if src.ended(j):
            return True
        if kinds is None:
            kinds = [f.kind for f in self.stack]
        c = text[j]
        if c == ",":
            return _resolve_continuing(kinds, run, src.peek(j + 1)) is not None
        if not _closes_root(kinds, run):
            return c in "\"'" and self._key_ahead(j)  # a missing comma after the closers
        if src.marker is None:
            return True  # bare JSON: prose may follow the document
        return c in "{[" and "\n" in text[last:j]


def _known(code: bool | None) -> bool:
    """``code`` where a decision depends on it: None (not known yet) raises `NeedMore`."""
    if code is None:
        raise NeedMore
    return code
