"""`agent-ls chat` progress on stderr while nothing else is shown (model loading, a document
being generated): a spinner with the elapsed time on a terminal, a line every
`HEARTBEAT` seconds otherwise (logs, CI, `make demo` piped)."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from typing import TextIO

FRAMES = "|/-\\"
TICK = 0.25
HEARTBEAT = 10.0


class Progress:
    """Shows that the turn is alive; `clear()` before anything else is written."""

    def __init__(
        self, detail: Callable[[], str] | None = None, stream: TextIO | None = None
    ) -> None:
        self.stream = stream or sys.stderr
        self.detail = detail
        self.tty = self.stream.isatty()
        self.started = time.monotonic()
        self.quiet_since = self.started
        self.drawn = False
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.ensure_future(self._run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        self.clear()

    def clear(self) -> None:
        """Erase the spinner (if drawn); output just happened, so the heartbeat waits."""
        if self.drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.drawn = False
        self.quiet_since = time.monotonic()

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        detail = self.detail() if self.detail else ""
        return f"working {elapsed:.0f}s" + (f", {detail}" if detail else "")

    async def _run(self) -> None:
        frame = 0
        while True:
            await asyncio.sleep(TICK)
            now = time.monotonic()
            if self.tty:
                frame = (frame + 1) % len(FRAMES)
                self.stream.write(f"\r\033[K{FRAMES[frame]} agent-ls: {self.line()}")
                self.stream.flush()
                self.drawn = True
            elif now - self.quiet_since >= HEARTBEAT:
                self.stream.write(f"agent-ls: {self.line()}\n")
                self.stream.flush()
                self.quiet_since = now
