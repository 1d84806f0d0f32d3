"""Index work at low priority, so a build never competes with the user's requests.

The CPU-heavy parts of a build — reading and chunking files (``Planner``), embedding chunks
(``EmbeddingWorker``) — run on this module's own worker threads, each niced (``NICE`` above
the process: ``setpriority`` on the thread's id is per thread on Linux), never on the
default executor the request handlers use. Between batches the work awaits ``Yield.pause``:
the server makes it wait while a chat turn runs (bounded, so a long conversation still lets
the index progress).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

log = logging.getLogger(__name__)
NICE = 10  # added to the process's nice value for the index's threads
WORKERS = 2  # the planner and the embedder can run side by side
BUSY_WAIT = 2.0  # seconds a batch waits at most for the running turns (then it goes on)

P = ParamSpec("P")
T = TypeVar("T")
_executor: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def nice_this_thread(increment: int = NICE) -> None:
    """Lower the priority of the calling thread only (Linux: a thread id is a process id
    for ``setpriority``); elsewhere, or when not allowed, it keeps its priority."""
    if not hasattr(os, "setpriority"):
        return
    tid = threading.get_native_id()
    try:
        current = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, min(19, current + increment))
    except OSError as error:
        log.info("the index threads keep their priority: %s", error)


def executor() -> ThreadPoolExecutor:
    """The process's pool of niced index threads (made on first use)."""
    global _executor
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(
                WORKERS, thread_name_prefix="agent-ls-index", initializer=nice_this_thread
            )
        return _executor


async def run_low(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``asyncio.to_thread`` on a niced index thread."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(executor(), functools.partial(function, *args, **kwargs))


class Yield:
    """Foreground work (chat turns) in progress; background batches ``pause`` for it."""

    def __init__(self, wait: float = BUSY_WAIT) -> None:
        self.wait = wait
        self.running = 0
        self._idle = asyncio.Event()
        self._idle.set()

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Mark a foreground turn for the duration of the block."""
        self.running += 1
        self._idle.clear()
        try:
            yield
        finally:
            self.running -= 1
            if not self.running:
                self._idle.set()

    async def pause(self) -> None:
        """Wait (at most ``wait`` seconds) until no turn runs; at once when none does."""
        if self.running:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._idle.wait(), self.wait)
