"""Search/replace edits: apply ``[{"search", "replace"}, ...]`` blocks to a text — pure.

Matching, per block, against the text as it is before any block of the batch applies (so
blocks may come in any order):
1. exact: ``search`` occurs once as a substring;
2. whitespace-tolerant: the lines of ``search`` equal a run of the text's lines once trailing
   whitespace is ignored (also absorbs CRLF vs LF, and blank lines around the search);
3. indentation-tolerant: the same, with every line shifted by one uniform indentation (the
   model re-indented the snippet); the replacement is re-indented by the same shift.
A search found more than once (at the first level that finds it) is ambiguous: refused with
the line numbers, asking for more context. All blocks apply or none: `apply_edits` raises
`EditsFailed` listing every failed block (with the nearest lines of the text, numbered) and
every block that did match. Replacements take the text's line ending (CRLF files stay CRLF).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from actions.errors import ActionError
from actions.search_nearest import best_window, nearest_lines, similarity
from actions.text_lines import TextLines

MatchKind = Literal["exact", "whitespace", "indentation"]
FailReason = Literal["not_found", "ambiguous", "overlap", "empty"]
MAX_LISTED_PLACES = 5


@dataclass(frozen=True)
class EditBlock:
    """One search/replace pair as the model sent it."""

    search: str
    replace: str


@dataclass(frozen=True)
class Matched:
    """Where block ``index`` matched: ``text[start:end]`` becomes ``replacement``."""

    index: int
    start: int
    end: int
    replacement: str
    kind: MatchKind
    line: int
    """1-based line of the match's start."""


@dataclass(frozen=True)
class Failed:
    """Why block ``index`` cannot apply; ``nearest`` holds numbered lines of the text."""

    index: int
    reason: FailReason
    nearest: tuple[tuple[int, str], ...] = ()
    places: tuple[int, ...] = ()
    """Ambiguous: the 1-based lines where the search matched (overlap: the line)."""
    other: int = -1
    """Overlap: the index of the other block."""
    similar: float = 0.0
    """Not found: how close the nearest lines are (difflib ratio, 0..1)."""

    def describe(self, label: Callable[[int], str] | None = None) -> str:
        """One line saying why, naming blocks with ``label`` (default "block N")."""
        name = label or (lambda index: f"block {index + 1}")
        if self.reason == "empty":
            return (
                f"{name(self.index)}: search is empty; copy the existing lines next to the "
                "change into search (and repeat them in replace) to say where it goes"
            )
        if self.reason == "ambiguous":
            shown = ", ".join(str(p) for p in self.places)
            return (
                f"{name(self.index)}: search matches {len(self.places)} places (lines {shown}); "
                "add a few unchanged lines around it so it matches exactly one"
            )
        if self.reason == "overlap":
            return (
                f"{name(self.index)} and {name(self.other)} change overlapping lines "
                f"(near line {self.places[0]}); merge them into one block"
            )
        where = (
            f"; the nearest lines are {self.nearest[0][0]}-{self.nearest[-1][0]}"
            f" ({self.similar:.0%} similar)"
        )
        return f"{name(self.index)}: search not found{where if self.nearest else ''}"


@dataclass(frozen=True)
class EditResult:
    text: str
    matched: tuple[Matched, ...]


class EditsFailed(ActionError):
    """Some blocks failed: nothing was applied; ``matched`` would apply once they are fixed."""

    kind = "edits_failed"

    def __init__(self, failed: Sequence[Failed], matched: Sequence[Matched], total: int) -> None:
        self.failed = tuple(failed)
        self.matched = tuple(matched)
        self.total = total
        counts = f"{len(self.failed)} of {total} search/replace block(s) failed"
        super().__init__(f"{counts}: " + "; ".join(f.describe() for f in self.failed))


def apply_edits(text: str, blocks: Sequence[EditBlock]) -> EditResult:
    """The text with every block applied (EditsFailed: none applied, and why)."""
    lines = TextLines.of(text)
    anchors = _choose_anchors(lines, blocks)
    matched: list[Matched] = []
    failed: list[Failed] = []
    for index, block in enumerate(blocks):
        outcome = match_block(lines, index, block, anchors[index])
        if isinstance(outcome, Matched):
            matched.append(outcome)
        else:
            failed.append(outcome)
    failed += _overlaps(matched)
    if failed:
        failing = {f.index for f in failed}
        kept = [m for m in matched if m.index not in failing]
        raise EditsFailed(sorted(failed, key=lambda f: f.index), kept, len(blocks))
    pieces: list[str] = []
    cursor = 0
    for match in sorted(matched, key=lambda m: m.start):
        pieces += [text[cursor : match.start], match.replacement]
        cursor = match.end
    pieces.append(text[cursor:])
    return EditResult("".join(pieces), tuple(sorted(matched, key=lambda m: m.index)))


Anchor = tuple[str, int] | None
"""A whole line of the search and its offset in it (None: no whole line, search by find)."""


def _choose_anchors(lines: TextLines, blocks: Sequence[EditBlock]) -> list[Anchor]:
    """For each search, its rarest whole line in the text; then where those lines are, in
    one pass. An exact occurrence of a search must hold each of its whole lines (those after
    its first line break) as a line of the text, so only those places need checking."""
    counts = Counter(lines.lines)
    chosen: list[Anchor] = []
    for block in blocks:
        best: Anchor = None
        offset = block.search.find("\n") + 1
        while offset:
            end = block.search.find("\n", offset) + 1
            if not end:
                break
            row = block.search[offset:end]
            if best is None or counts[row] < counts[best[0]]:
                best = (row, offset)
            offset = end
        chosen.append(best)
    wanted = {anchor[0] for anchor in chosen if anchor is not None and counts[anchor[0]]}
    for number, line in enumerate(lines.lines):
        if line in wanted:
            lines.anchors.setdefault(line, []).append(number)
    return chosen


def match_block(
    lines: TextLines, index: int, block: EditBlock, anchor: Anchor = None
) -> Matched | Failed:
    """Where one block applies, or why it cannot."""
    search = block.search
    if not search.strip():
        if not lines.text and not search:
            return Matched(index, 0, 0, block.replace, "exact", 1)
        return Failed(index, "empty")
    exact = _exact_places(lines, search, anchor)
    if len(exact) == 1:
        start = exact[0]
        replacement = _with_newline(block.replace, lines.newline)
        return Matched(index, start, start + len(search), replacement, "exact", _line(lines, start))
    if len(exact) > 1:
        return _ambiguous(lines, index, [_line(lines, at) for at in exact])
    return _tolerant(lines, index, block)


def _exact_places(lines: TextLines, search: str, anchor: Anchor) -> list[int]:
    text = lines.text
    places: list[int] = []
    if anchor is not None:
        row, offset = anchor
        for number in lines.anchors.get(row, ()):
            at = lines.offsets[number] - offset
            if at >= 0 and text.startswith(search, at):
                places.append(at)
                if len(places) > MAX_LISTED_PLACES:
                    break
        return places
    at = text.find(search)
    while at >= 0 and len(places) <= MAX_LISTED_PLACES:
        places.append(at)
        at = text.find(search, at + 1)
    return places


def _line(lines: TextLines, offset: int) -> int:
    return lines.line_of(offset) + 1


def _with_newline(replace: str, newline: str) -> str:
    """``replace`` with the text's line ending (only CRLF texts change anything)."""
    if newline == "\n" or "\n" not in replace:
        return replace
    return replace.replace("\r\n", "\n").replace("\n", "\r\n")


def rows_of(text: str) -> list[str]:
    """The lines of ``text`` without their endings (only LF / CRLF end a line)."""
    rows = [row.removesuffix("\r") for row in text.split("\n")]
    return rows[:-1] if rows and not rows[-1] and text else rows


def _strip_blank_edges(rows: list[str]) -> tuple[list[str], int, int]:
    """``rows`` without blank lines at both ends, and how many were dropped at each end."""
    head = 0
    while head < len(rows) and not rows[head].strip():
        head += 1
    tail = len(rows)
    while tail > head and not rows[tail - 1].strip():
        tail -= 1
    return rows[head:tail], head, len(rows) - tail


def _tolerant(lines: TextLines, index: int, block: EditBlock) -> Matched | Failed:
    wanted, head, tail = _strip_blank_edges(rows_of(block.search))
    replace_rows = rows_of(block.replace) if block.replace else []
    kinds: tuple[MatchKind, ...] = ("whitespace", "indentation")
    for kind in kinds:
        places = _line_places(lines, wanted, kind == "indentation")
        if len(places) > 1:
            return _ambiguous(lines, index, [first + 1 for first, _ in places])
        if places:
            first, shift = places[0]
            rows = _trim_mirrored(replace_rows, head, tail)
            return _line_match(lines, index, first, len(wanted), rows, shift, kind)
    return _not_found(lines, index, wanted)


def _trim_mirrored(rows: list[str], head: int, tail: int) -> list[str]:
    """Drop from ``replace`` the blank edge lines that mirror the ones dropped from search."""
    while head and rows and not rows[0].strip():
        rows, head = rows[1:], head - 1
    while tail and rows and not rows[-1].strip():
        rows, tail = rows[:-1], tail - 1
    return rows


Shift = tuple[str, str]
"""(removed, added) indentation prefix turning a search line into the text's line."""


def _line_places(lines: TextLines, wanted: list[str], reindent: bool) -> list[tuple[int, Shift]]:
    """0-based first lines where ``wanted`` matches (with the indentation shift)."""
    if not wanted:
        return []
    candidates = lines.index().get(wanted[0].strip(), [])
    places: list[tuple[int, Shift]] = []
    for first in candidates:
        window = lines.lines[first : first + len(wanted)]
        if len(window) < len(wanted):
            continue
        shift = _window_shift(window, wanted, reindent)
        if shift is not None:
            places.append((first, shift))
            if len(places) > MAX_LISTED_PLACES:
                break
    return places


def _window_shift(window: list[str], wanted: list[str], reindent: bool) -> Shift | None:
    """The uniform indentation shift making ``wanted`` equal ``window`` (("", "") if none)."""
    shift: Shift | None = None if reindent else ("", "")
    for have, want in zip(window, wanted, strict=True):
        have, want = have.rstrip(), want.rstrip()
        if not have and not want:
            continue
        if not reindent:
            if have != want:
                return None
            continue
        body = have.lstrip()
        if body != want.lstrip():
            return None
        pair = _indent_delta(have[: len(have) - len(body)], want[: len(want) - len(want.lstrip())])
        if pair is None or (shift is not None and pair != shift):
            return None
        shift = pair
    if reindent and (shift is None or shift == ("", "")):
        return None  # the whitespace pass already decided unshifted windows
    return shift


def _indent_delta(have: str, want: str) -> Shift | None:
    if have.endswith(want):
        return ("", have[: len(have) - len(want)])
    if want.endswith(have):
        return (want[: len(want) - len(have)], "")
    return None


def _reindent(row: str, shift: Shift) -> str:
    removed, added = shift
    if not row.strip():
        return row.strip(" \t")
    if removed:
        row = row[len(removed) :] if row.startswith(removed) else row.lstrip(" \t")
    return added + row


def _line_match(
    lines: TextLines,
    index: int,
    first: int,
    count: int,
    rows: list[str],
    shift: Shift,
    kind: MatchKind,
) -> Matched:
    start, end = lines.offsets[first], lines.offsets[first + count]
    region = lines.text[start:end]
    ending = region[len(region.rstrip("\r\n")) :]
    newline = "\r\n" if ending.startswith("\r\n") else ("\n" if ending else lines.newline)
    body = newline.join(_reindent(row, shift) for row in rows)
    replacement = body + ending if rows else ""
    return Matched(index, start, end, replacement, kind, first + 1)


def _ambiguous(lines: TextLines, index: int, places: list[int]) -> Failed:
    return Failed(index, "ambiguous", places=tuple(places[:MAX_LISTED_PLACES]))


def _not_found(lines: TextLines, index: int, wanted: list[str]) -> Failed:
    if not lines.lines or not wanted:
        return Failed(index, "not_found")
    first = best_window(lines, wanted)
    return Failed(
        index,
        "not_found",
        nearest=nearest_lines(lines, wanted, first),
        similar=similarity(lines, first, wanted),
    )


def _overlaps(matched: list[Matched]) -> list[Failed]:
    """Blocks whose matches overlap: both refused (merge them into one block)."""
    failed: dict[int, Failed] = {}
    ordered = sorted(matched, key=lambda m: (m.start, m.end))
    for before, after in pairwise(ordered):
        if after.start < before.end or (after.start == before.start == before.end):
            for which, other in ((before.index, after.index), (after.index, before.index)):
                failed.setdefault(
                    which, Failed(which, "overlap", places=(after.line,), other=other)
                )
    return list(failed.values())


def dedupe(blocks: Sequence[EditBlock]) -> list[EditBlock]:
    """Blocks without exact repeats (a model re-sending a block it already sent)."""
    return list(dict.fromkeys(blocks))
