"""LSP base-protocol framing (`Content-Length: N` headers, blank line, N bytes of JSON).

The reader never goes deaf: a frame whose length is missing, not a number, negative, too
large, too short or too long is reported as a `BadFrame` (with whatever JSON value could be
recovered, so a request in it still gets an answer) and reading resumes at the next
`Content-Length` header. Bytes that belong to no frame are skipped with a log line.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)

MAX_CONTENT_LENGTH = 256 * 1024 * 1024
MAX_HEADER_BYTES = 8192
STALL_SECONDS = 0.25  # no byte for this long: judge the frame on what arrived

_HEADER_AT = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)
_HEADER_NAME = b"content-length:"
_HEADER_TAIL = re.compile(rb"content-length[ \t]*:[ \t]*[0-9]*[ \t]*\r?\n?\r?")
_FULL_HEADER = re.compile(rb"content-length[ \t]*:[ \t]*[0-9]+[ \t]*\r?\n", re.IGNORECASE)
_HEADER_LINE = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+[ \t]*:[^\r\n]*")
_LENGTH_VALUE = re.compile(rb"[ \t]*([0-9]+)[ \t]*")
_WHITESPACE = b" \t\r\n"
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Frame:
    """A well-framed body (not yet decoded)."""

    body: bytes


@dataclass(frozen=True)
class BadFrame:
    """A framing error; `body` holds the bytes that were taken for the body, if any."""

    problem: str
    body: bytes = b""


ReadChunk = Callable[[], Awaitable[bytes]]


class FrameReader:
    """Frames from a byte source; `read_chunk` returns what is available (b"" at EOF)."""

    def __init__(self, read_chunk: ReadChunk) -> None:
        self._read_chunk = read_chunk
        self._pending: asyncio.Future[bytes] | None = None
        self.buffer = bytearray()
        self.eof = False

    async def _fill(self, timeout: float | None) -> bool:
        """Read more bytes; False when nothing came within `timeout` or at EOF."""
        if self.eof:
            return False
        if self._pending is None:
            self._pending = asyncio.ensure_future(self._read_chunk())
        done, _ = await asyncio.wait({self._pending}, timeout=timeout)
        if not done:
            return False
        chunk, self._pending = self._pending.result(), None
        if not chunk:
            self.eof = True
            return False
        self.buffer += chunk
        return True

    async def next(self) -> Frame | BadFrame | None:
        """The next frame, a framing error, or None at the end of the stream."""
        while True:
            if bytes(self.buffer.lstrip(_WHITESPACE)[:1]) in (b"{", b"["):
                frame = await self._unframed("the message has no Content-Length header")
                if frame is None:
                    return None
                return frame
            if not self._skip_to_header():
                if not await self._fill(None):
                    self._at_eof()
                    return None
                continue
            end = _header_end(self.buffer)
            if end is None:
                if len(self.buffer) > MAX_HEADER_BYTES:
                    self._drop_junk("bytes of a header block without its blank line")
                    continue
                if not await self._fill(None):
                    self._at_eof()
                    return None
                continue
            header, body_start = end
            if not _well_formed(bytes(self.buffer[:header])):
                # Up to the next header; with none yet, judge the block again with more bytes.
                if not self._skip_junk(1, "bytes of a malformed header block") and not (
                    await self._fill(None)
                ):
                    self._at_eof()
                    return None
                continue
            length, problem = parse_length(bytes(self.buffer[:header]))
            del self.buffer[:body_start]
            if problem is not None:
                return await self._unframed(problem)
            return await self._body(length)

    def _at_eof(self) -> None:
        if self.buffer.strip(_WHITESPACE):
            log.warning("connection closed inside a frame (%d bytes dropped)", len(self.buffer))

    def _skip_to_header(self) -> bool:
        """Drop blank lines and junk before the next header; False: need more bytes."""
        stripped = self.buffer.lstrip(_WHITESPACE)
        del self.buffer[: len(self.buffer) - len(stripped)]
        if not self.buffer:
            return False
        line_end = self.buffer.find(b"\n")
        first = bytes(self.buffer[: line_end if line_end >= 0 else len(self.buffer)])
        if _HEADER_LINE.fullmatch(first.rstrip(b"\r")) or (line_end < 0 and len(first) < 64):
            return True
        return self._skip_junk(0, "bytes outside any frame")

    def _skip_junk(self, start: int, what: str) -> bool:
        found = _HEADER_AT.search(self.buffer, start)
        if found is None:
            if len(self.buffer) > MAX_CONTENT_LENGTH:
                log.warning("dropped %d %s", len(self.buffer), what)
                self.buffer.clear()
            return False
        log.warning(
            "skipped %d %s, resuming at the next Content-Length header", found.start(), what
        )
        del self.buffer[: found.start()]
        return True

    def _drop_junk(self, what: str) -> None:
        """Skip the header block at the start of the buffer to the next header; with none yet,
        drop it all but a header cut short at its end, so the next look reads new bytes."""
        if self._skip_junk(1, what):
            return
        drop = max(1, _cut_header_start(self.buffer))
        log.warning("dropped %d %s (no Content-Length header follows)", drop, what)
        del self.buffer[:drop]

    async def _body(self, length: int) -> Frame | BadFrame | None:
        while len(self.buffer) < length:
            if await self._fill(STALL_SECONDS):
                continue
            early = self._early_end(length)
            if early is not None:
                return early
            if self.eof:
                self._at_eof()
                return None
            await self._fill(None)
        body = bytes(self.buffer[:length])
        del self.buffer[:length]
        if _is_json(body):
            return Frame(body)
        value_end = _value_end(body)
        if value_end is not None:  # what follows the value is read again as framing
            self.buffer[:0] = body[value_end:]
            return BadFrame(
                f"Content-Length {length} is longer than the message ({value_end} bytes)",
                body[:value_end],
            )
        cut = _next_header_in(body)
        self.buffer[:0] = body[cut:]
        body = body[:cut]
        return BadFrame("", body)  # an invalid JSON body: the parser names the problem

    def _early_end(self, length: int) -> BadFrame | None:
        """The sender stopped short of `length`: a whole JSON value already here is the
        message (the length was too large); the rest resumes as frames."""
        value_end = _value_end(self.buffer)
        if value_end is None:
            resume = _FULL_HEADER.search(self.buffer)
            if resume is None:
                return None
            body = bytes(self.buffer[: resume.start()])
            del self.buffer[: resume.start()]
            return BadFrame(f"Content-Length {length} runs into the next frame", body)
        rest = bytes(self.buffer[value_end:]).lstrip(_WHITESPACE)
        if rest and not _HEADER_AT.match(rest):
            return None
        body = bytes(self.buffer[:value_end])
        del self.buffer[:value_end]
        return BadFrame(
            f"Content-Length {length} is longer than the message ({value_end} bytes)", body
        )

    async def _unframed(self, problem: str) -> BadFrame | None:
        """A header block without a usable length: take one JSON value if one follows."""
        while True:
            value_end = _value_end(self.buffer)
            if value_end is not None:
                body = bytes(self.buffer[:value_end])
                del self.buffer[:value_end]
                return BadFrame(problem, body)
            resume = _HEADER_AT.search(self.buffer)
            if resume is not None:
                body = bytes(self.buffer[: resume.start()])
                del self.buffer[: resume.start()]
                return BadFrame(problem, body)
            if not await self._fill(STALL_SECONDS) and self.eof:
                return BadFrame(problem, bytes(self.buffer)) if self.buffer.strip() else None
            if len(self.buffer) > MAX_CONTENT_LENGTH:
                self.buffer.clear()
                return BadFrame(problem)


def parse_length(header: bytes) -> tuple[int, str | None]:
    """The Content-Length of a header block, or the problem with it."""
    values = []
    for line in header.splitlines():
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            values.append(value)
    if not values:
        return 0, "the frame has no Content-Length header"
    raw = values[-1]
    shown = raw.strip().decode("utf-8", "replace")[:40]
    match = _LENGTH_VALUE.fullmatch(raw)
    if match is None:
        return 0, f"Content-Length {shown!r} is not a non-negative integer"
    length = int(match.group(1))
    if length > MAX_CONTENT_LENGTH:
        return 0, f"Content-Length {length} is over the limit ({MAX_CONTENT_LENGTH})"
    if length == 0:
        return 0, "Content-Length 0: the frame has no body"
    return length, None


def _next_header_in(body: bytes) -> int:
    """Where a header that follows a bad body starts inside it (a length too large), or the
    body's end: a whole `Content-Length: N` line (raw line breaks cannot be inside JSON
    text), else a tail that begins such a header."""
    found = _FULL_HEADER.search(body)
    return found.start() if found is not None else _cut_header_start(body)


def _cut_header_start(data: bytes | bytearray) -> int:
    """Where a `Content-Length` header cut short by the end of `data` begins, or its end."""
    for start in range(max(0, len(data) - 48), len(data)):
        tail = bytes(data[start:]).lower()
        if _HEADER_NAME.startswith(tail) or _HEADER_TAIL.fullmatch(tail):
            return start
    return len(data)


def _well_formed(block: bytes) -> bool:
    """Header lines only, none with a Content-Length glued inside (junk before a header)."""
    return all(
        _HEADER_LINE.fullmatch(line) and not _HEADER_AT.search(line, 1)
        for line in block.splitlines()
    )


def _header_end(buffer: bytearray) -> tuple[int, int] | None:
    """(end of the header lines, start of the body), or None when incomplete."""
    crlf = buffer.find(b"\r\n\r\n")
    lf = buffer.find(b"\n\n")
    ends = [(crlf, crlf + 4)] if crlf >= 0 else []
    if lf >= 0:
        ends.append((lf, lf + 2))
    return min(ends) if ends else None


def _is_json(body: bytes) -> bool:
    try:
        json.loads(body)
    except (ValueError, RecursionError):
        return False
    return True


def _value_end(data: bytes | bytearray) -> int | None:
    """End offset of the JSON object or array at the start of `data` (after whitespace)."""
    text = bytes(data).decode("utf-8", "surrogateescape")
    start = len(text) - len(text.lstrip())
    if text[start : start + 1] not in ("{", "["):
        return None
    try:
        _, end = _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    return len(text[:end].encode("utf-8", "surrogateescape"))
