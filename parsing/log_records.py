"""Log lines -> the JSON objects they hold (the result-log parser's records, SPEC §4).

A log line may carry its object after any prefix a runner or logger adds: a timestamp
(``[12:00:00]``, ``2025-01-01 10:00:00``), a stream or component name (``stdout:``,
``runner:``), a level word anywhere before it (``ERROR:``, ``[WARN]``). The object starts at
the first ``{`` of the line when nothing before it is quoted (a ``"`` before the brace means
the brace is inside JSON, not after a prefix).

An object may also be pretty-printed over several lines: when a line's object is still open
at its end (outside a string: JSON strings hold no raw newline), the following lines are
added (string-aware bracket count) until it closes. The record then holds the joined text and
the number of the line it started on. A following line that starts a log entry of its own (an
object at column 0, or after a non-blank prefix) ends the attempt: the first line was a cut-off
object: the lines read for it make one record that fails to parse (reported at its first
line), and the lines after its first are read again on their own. So is an object that does
not close within `MAX_RECORD_LINES` lines.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Final

MAX_RECORD_LINES: Final = 2000
"""A pretty-printed object longer than this is not joined (its first line stands alone)."""

_STRUCTURE = re.compile(r'["\\{}\[\]]')


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One candidate object of the log."""

    line: int
    """1-based number of the line the object starts on."""
    body: str
    """The object's text (from its ``{``), lines joined with ``\\n`` when pretty-printed."""
    source: str
    """The whole text of its lines (prefix included), for indicator searches."""


def object_start(line: str) -> int:
    """Index of the ``{`` opening the line's object after its prefix, or -1."""
    brace = line.find("{")
    if brace < 0 or '"' in line[:brace]:
        return -1
    return brace


@dataclass
class _Depth:
    """String-aware bracket depth carried across lines."""

    depth: int = 0
    in_string: bool = False

    def feed(self, text: str) -> bool:
        """Count ``text``; True once the outermost bracket has closed."""
        skip = -1  # the character after a backslash in a string
        for m in _STRUCTURE.finditer(text):
            c = m.group()
            if m.start() == skip:
                continue
            if self.in_string:
                if c == "\\":
                    skip = m.start() + 1
                elif c == '"':
                    self.in_string = False
            elif c == '"':
                self.in_string = True
            elif c in "{[":
                self.depth += 1
            elif c in "}]":
                self.depth -= 1
                if self.depth <= 0:
                    return True
        return False


def _closing_line(lines: Sequence[str], index: int, body: str) -> tuple[bool, int]:
    """``(closed, last)``: whether the object opened at ``body`` (on line ``index``) closes,
    and the last line read for it (where it closes, or where the attempt stopped)."""
    counter = _Depth()
    if counter.feed(body):
        return True, index
    stop = min(len(lines), index + MAX_RECORD_LINES)
    for k in range(index + 1, stop):
        if counter.in_string or _starts_entry(lines[k]):
            return False, k - 1
        if counter.feed(lines[k]):
            return True, k
    return False, stop - 1


def _starts_entry(line: str) -> bool:
    """The line starts a log entry of its own (not a line of a pretty-printed object)."""
    start = object_start(line)
    return start == 0 or (start > 0 and line[:start].strip() != "")


def log_records(
    lines: Sequence[str], first: int = 1, step: int = 256
) -> Generator[None, None, list[LogRecord]]:
    """The records of ``lines`` (numbered from ``first``), in order; yields every ``step``
    lines so a caller can honour a deadline or cancellation."""
    records: list[LogRecord] = []
    index, n, budget = 0, len(lines), step
    while index < n:
        line = lines[index]
        start = object_start(line)
        end = index
        if start >= 0:
            closed, last = _closing_line(lines, index, line[start:])
            if last > index:  # joined; when not closed: one record that fails to parse
                body = "\n".join([line[start:], *lines[index + 1 : last + 1]])
                source = "\n".join(lines[index : last + 1])
                records.append(LogRecord(first + index, body, source))
            else:
                records.append(LogRecord(first + index, line[start:].strip(), line))
            if closed:
                end = last
        budget -= end - index + 1
        index = end + 1
        if budget <= 0:
            budget = step
            yield
    return records
