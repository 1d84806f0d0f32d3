"""Byte transports for the wire: a reader thread for stdio, and a writer that batches.

Every message written during one event-loop tick leaves in one write (a streamed turn used
to cost one flushed write per notification). Write errors close the writer quietly: the
client has gone, and the turn in progress must still roll back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Callable
from typing import BinaryIO

log = logging.getLogger(__name__)
CHUNK = 65536


def stdin_chunks(stdin: BinaryIO) -> Callable[[], asyncio.Future[bytes]]:
    """A chunk source for `stdin`, read by a daemon thread (so it never blocks the exit)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[bytes] = asyncio.Queue()
    read = _raw_read(stdin)

    def pump() -> None:
        while True:
            try:
                chunk = read(CHUNK)
            except (OSError, ValueError):
                chunk = b""
            try:
                loop.call_soon_threadsafe(queue.put_nowait, chunk)
            except RuntimeError:  # the loop is closed: the server is gone
                return
            if not chunk:
                return

    threading.Thread(target=pump, name="agent-ls stdin", daemon=True).start()
    return lambda: asyncio.ensure_future(queue.get())


def _raw_read(stdin: BinaryIO) -> Callable[[int], bytes]:
    """os.read on the descriptor: a daemon thread blocked in a buffered reader's lock
    aborts the interpreter at exit ("could not acquire lock ... at interpreter shutdown")."""
    try:
        fd = stdin.fileno()
    except (OSError, ValueError, AttributeError):
        return getattr(stdin, "read1", stdin.read)
    return lambda size: os.read(fd, size)


class BatchingWriter:
    """pygls' writer interface; bytes written in one loop tick go out in one write."""

    def __init__(self, raw_write: Callable[[bytes], None], raw_close: Callable[[], None]):
        self._raw_write = raw_write
        self._raw_close = raw_close
        self._loop = asyncio.get_running_loop()
        self._chunks: list[bytes] = []
        self._lock = threading.Lock()
        self._scheduled = False
        self.closed = False

    def write(self, data: bytes) -> None:
        with self._lock:
            if self.closed:
                return
            self._chunks.append(data)
            if self._scheduled:
                return
            self._scheduled = True
        if _on_loop(self._loop):
            self._loop.call_soon(self.flush)
        else:
            self._loop.call_soon_threadsafe(self.flush)

    def flush(self) -> None:
        with self._lock:
            data = b"".join(self._chunks)
            self._chunks.clear()
            self._scheduled = False
        if not data or self.closed:
            return
        try:
            self._raw_write(data)
        except (OSError, ValueError) as exc:
            log.info("the client connection is gone (%s); nothing more is sent", exc)
            self.closed = True

    def close(self) -> None:
        self.flush()
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self._raw_close()


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def write_all(stream: BinaryIO) -> Callable[[bytes], None]:
    """A raw write for a blocking binary stream that may accept part of the data."""

    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = stream.write(view)
            view = view[written if written is not None else len(view) :]
        flush = getattr(stream, "flush", None)
        if flush is not None:
            flush()

    return write
