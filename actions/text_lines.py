"""A text split into lines for matching: offsets, and lazy indexes by stripped line and by word.

Only LF (and CRLF) end a line: ``str.splitlines`` would also split on form feeds and Unicode
separators, which are ordinary characters of source files.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from itertools import accumulate

WORD = re.compile(r"\w+")


@dataclass
class TextLines:
    """The text split into lines (with endings), their offsets, and lazy normal forms."""

    text: str
    lines: list[str]
    offsets: list[int]
    newline: str
    _index: dict[str, list[int]] | None = field(default=None, repr=False)
    _words: dict[str, list[int]] | None = field(default=None, repr=False)
    anchors: dict[str, list[int]] = field(default_factory=dict, repr=False)
    """Whole lines chosen as anchors of the searches -> the 0-based lines holding them."""

    @classmethod
    def of(cls, text: str) -> TextLines:
        parts = text.split("\n")
        lines = [part + "\n" for part in parts[:-1]]
        if parts[-1]:
            lines.append(parts[-1])
        offsets = [0, *accumulate(map(len, lines))]
        return cls(text, lines, offsets, dominant_newline(text))

    def line_of(self, offset: int) -> int:
        """0-based line holding ``offset``."""
        return bisect.bisect_right(self.offsets, offset) - 1

    def words(self) -> dict[str, list[int]]:
        """Word -> the 0-based lines holding it."""
        if self._words is None:
            words: dict[str, list[int]] = {}
            for number, line in enumerate(self.lines):
                for word in set(WORD.findall(line)):
                    words.setdefault(word, []).append(number)
            self._words = words
        return self._words

    def index(self) -> dict[str, list[int]]:
        """Stripped line -> the 0-based lines holding it."""
        if self._index is None:
            index: dict[str, list[int]] = {}
            for number, line in enumerate(self.lines):
                index.setdefault(line.strip(), []).append(number)
            self._index = index
        return self._index


def dominant_newline(text: str) -> str:
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf * 2 >= text.count("\n") else "\n"
