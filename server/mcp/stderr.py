"""A stdio MCP server's stderr: read from a pipe of our own (never passed raw to our stderr,
which is the editor's log), each line redacted (server/redact.py: the server's `env` values,
`${VAR}` expanded, are registered secrets) and logged with the server's name at INFO; the
last lines kept for `agent/status` when the server fails."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import deque
from typing import TextIO

from server.redact import redact

log = logging.getLogger("server.mcp.stderr")

TAIL_LINES = 5  # the lines shown with a failed server's error
LINE_CHARS = 300  # a longer line is cut (a server may print a whole JSON document)
CHUNK = 4096


class StderrLog:
    """One start's stderr pipe: `writer` is given to the process, `close_writer` once it is
    spawned (our copy of the write end would keep the pipe open), `finish` at its end."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.tail: deque[str] = deque(maxlen=TAIL_LINES)
        read_fd, write_fd = os.pipe()
        self.writer: TextIO = open(write_fd, "w", encoding="utf-8")  # noqa: SIM115 (closed by close_writer)
        self._reader = open(read_fd, "rb")  # noqa: SIM115 (closed with its transport)
        self._task = asyncio.create_task(self._read(), name=f"mcp stderr {server}")

    def close_writer(self) -> None:
        with contextlib.suppress(OSError):
            self.writer.close()

    async def finish(self, timeout: float = 2.0) -> None:
        """Until the pipe's end (the server and its children gone), at most `timeout`."""
        self.close_writer()
        await asyncio.wait({self._task}, timeout=timeout)
        if not self._task.done():  # a child the server left behind holds the pipe
            self._task.cancel()
            await asyncio.wait({self._task})
        self._reader.close()  # (its transport closed it, unless it never started)

    async def _read(self) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), self._reader
        )
        pending = b""
        try:
            while chunk := await reader.read(CHUNK):
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    self._line(line)
                pending = pending[-CHUNK:]  # a line without end stays bounded
            if pending:
                self._line(pending)
        finally:
            transport.close()

    def _line(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").rstrip()
        if not text:
            return
        shown = redact(text)[:LINE_CHARS]
        self.tail.append(shown)
        log.info("mcp server %s: %s", self.server, shown)
