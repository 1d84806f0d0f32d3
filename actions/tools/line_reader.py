"""A file's lines read in bounded blocks: no line, however long, is ever held whole.

`LineReader(handle, cap)` yields each line as a `Line`: its first ``cap`` bytes (the LF
included when it fits), its whole length in bytes and its 1-based number. Memory stays at one
block plus ``cap`` bytes whatever the file's shape (a 400 MB file of one line costs what a
short one does); `count_rest` counts the lines not yet read without building them. Only LF
ends a line (CRLF keeps its CR in the line, as ``read_file`` shows it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

BLOCK_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class Line:
    number: int
    head: bytes  # at most `cap` bytes of the line
    length: int  # the whole line's length in bytes, its LF included

    @property
    def cut(self) -> bool:
        """True when the line is longer than what `head` holds."""
        return len(self.head) < self.length


class LineReader:
    """The lines of a binary file handle from its current position, each capped."""

    def __init__(self, handle: BinaryIO, cap: int, block: int = BLOCK_BYTES) -> None:
        if cap < 1 or block < 1:
            raise ValueError("cap and block must be positive")
        self._handle = handle
        self._cap = cap
        self._block = block
        self._data = b""
        self._start = 0  # where the unread part of `_data` begins
        self.read_lines = 0

    def __iter__(self) -> Iterator[Line]:
        while (line := self._next()) is not None:
            yield line

    def _next(self) -> Line | None:
        head = bytearray()
        length = 0
        while True:
            if self._start >= len(self._data):
                self._data, self._start = self._handle.read(self._block), 0
                if not self._data:
                    return self._line(head, length) if length else None
            end = self._data.find(b"\n", self._start)
            stop = len(self._data) if end < 0 else end + 1
            if len(head) < self._cap:
                head += self._data[self._start : min(stop, self._start + self._cap - len(head))]
            length += stop - self._start
            self._start = stop
            if end >= 0:
                return self._line(head, length)

    def _line(self, head: bytearray, length: int) -> Line:
        self.read_lines += 1
        return Line(self.read_lines, bytes(head), length)

    def count_rest(self) -> int:
        """How many lines remain after the last one read (a last line without LF counts);
        reads to the end of the file in blocks."""
        count = 0
        tail = b""
        data = self._data[self._start :] or self._handle.read(self._block)
        while data:
            count += data.count(b"\n")
            tail = data[-1:]
            data = self._handle.read(self._block)
        self._data, self._start = b"", 0
        if tail and tail != b"\n":
            count += 1
        self.read_lines += count
        return count


@dataclass(frozen=True, slots=True)
class Segment:
    """A window of one line: `data` starts `offset` bytes into line `number`; `seen` bytes of
    the line are read so far; `final` when the line ends with it."""

    number: int
    offset: int
    data: bytes
    seen: int
    final: bool


def segments(
    handle: BinaryIO, size: int, overlap: int, block: int = BLOCK_BYTES
) -> Iterator[Segment]:
    """Every line of `handle` as windows of at most `size` bytes, each repeating the last
    `overlap` bytes of the one before (a match across a boundary up to that long is whole in
    one window). A short line is one final window. Memory: one block plus `size` bytes."""
    if not 0 <= overlap < size:
        raise ValueError("overlap must be smaller than size")
    number, offset, seen, fresh = 1, 0, 0, 0
    window = bytearray()
    while data := handle.read(block):
        start = 0
        while start < len(data):
            end = data.find(b"\n", start)
            stop = len(data) if end < 0 else end + 1
            take = min(stop, start + size - len(window))
            window += data[start:take]
            seen += take - start
            fresh += take - start
            start = take
            if end >= 0 and take == end + 1:
                yield Segment(number, offset, bytes(window), seen, True)
                number, offset, seen, fresh = number + 1, 0, 0, 0
                window = bytearray()
            elif len(window) >= size:
                yield Segment(number, offset, bytes(window), seen, False)
                window = bytearray(window[len(window) - overlap :] if overlap else b"")
                offset, fresh = seen - len(window), 0
    if fresh:
        yield Segment(number, offset, bytes(window), seen, True)
    elif seen:  # the last line filled its window exactly: it ends here, with nothing new
        yield Segment(number, seen, b"", seen, True)
