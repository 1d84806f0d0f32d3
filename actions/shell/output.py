"""A command's output as the model reads it: the first and the last bytes, the middle counted.

Output can be any size (a test run printing a megabyte); the model gets the first
``head_bytes`` and the last ``tail_bytes`` with one line saying how many lines were left out,
so the failure at the end of a long log is never the part that is cut.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field

HEAD_BYTES = 4 * 1024
TAIL_BYTES = 12 * 1024


@dataclass
class CappedOutput:
    """Bytes fed in order; ``text()`` is the head, a gap line, and the tail."""

    head_bytes: int = HEAD_BYTES
    tail_bytes: int = TAIL_BYTES
    _head: bytearray = field(default_factory=bytearray)
    _tail: bytearray = field(default_factory=bytearray)
    _dropped_bytes: int = 0
    _dropped_newlines: int = 0
    total_bytes: int = 0

    def feed(self, data: bytes) -> None:
        self.total_bytes += len(data)
        room = self.head_bytes - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if not data:
            return
        self._tail += data
        over = len(self._tail) - self.tail_bytes
        if over > 0:
            self._dropped_newlines += self._tail.count(b"\n", 0, over)
            self._dropped_bytes += over
            del self._tail[:over]

    def text(self) -> str:
        """The output as text (invalid UTF-8 replaced), the cut said in its own line; the
        head and the tail shown as whole lines where they hold a line break."""
        if not self._dropped_bytes:
            return _decode(bytes(self._head + self._tail))
        head, tail = bytes(self._head), bytes(self._tail)
        dropped, lines = self._dropped_bytes, self._dropped_newlines
        end = head.rfind(b"\n") + 1
        if end:  # the head's last partial line joins the gap
            dropped += len(head) - end
            head = head[:end]
        start = tail.find(b"\n") + 1
        if 0 < start < len(tail):  # and so does the tail's first partial line
            dropped += start
            lines += 1
            tail = tail[start:]
        gap = f"[... {lines} line(s), {dropped} bytes left out ...]"
        shown_head = _decode(head)
        joint = "" if shown_head.endswith("\n") else "\n"
        return f"{shown_head}{joint}{gap}\n{_decode(tail)}"

    @property
    def cut(self) -> bool:
        return self._dropped_bytes > 0


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


class StreamDecoder:
    """Chunks of bytes to text for the editor, a character split across chunks kept whole."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def decode(self, data: bytes, *, final: bool = False) -> str:
        return self._decoder.decode(data, final)
