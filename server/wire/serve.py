"""Run a connection over stdio or TCP until EOF, `exit`, SIGINT or SIGTERM.

Stopping is the same for every cause: the reader stops, every handler still running is
cancelled and awaited (a plan in progress rolls back and its files are restored), pending
output is flushed, and the process exits. SIGINT and SIGTERM exit with 128 + the signal
number after that clean-up; `exit` with 0 after `shutdown`, else 1; end of input with 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import Any, BinaryIO

from pygls.protocol import JsonRPCProtocol

from server.wire.connection import Connection
from server.wire.framing import FrameReader
from server.wire.transport import BatchingWriter, stdin_chunks, write_all

log = logging.getLogger(__name__)
STOP_GRACE_SECONDS = 20.0
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stopped(Exception):
    """A stop signal arrived."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def run_stdio(protocol: JsonRPCProtocol, stdin: BinaryIO, stdout: BinaryIO) -> int:
    async def main() -> int:
        writer = BatchingWriter(write_all(stdout), stdout.close)
        protocol.set_writer(writer)
        reader = FrameReader(stdin_chunks(stdin))
        return await until_stopped(Connection(protocol).run(reader), writer)

    return asyncio.run(main())


def run_tcp(protocol: JsonRPCProtocol, host: str, port: int) -> int:
    """Serve one client on a loopback socket; prints "listening on HOST:PORT" on stderr."""

    async def main() -> int:
        finished: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        busy = False

        async def on_client(reader: asyncio.StreamReader, stream: asyncio.StreamWriter) -> None:
            nonlocal busy
            if busy:
                log.warning("refused a second client: one client per server")
                stream.close()
                return
            busy = True
            writer = BatchingWriter(stream.write, stream.close)
            protocol.set_writer(writer)
            frames = FrameReader(lambda: asyncio.ensure_future(reader.read(65536)))
            try:
                code = await Connection(protocol).run(frames)
            finally:
                writer.flush()
            if not finished.done():
                finished.set_result(code)

        server = await asyncio.start_server(on_client, host, port)
        bound = server.sockets[0].getsockname()

        async def announced() -> int:  # after the signal handlers are in place
            print(f"agent-ls: listening on {bound[0]}:{bound[1]}", file=sys.stderr, flush=True)
            return await finished

        async with server:
            return await until_stopped(announced(), None)

    return asyncio.run(main())


async def until_stopped(
    work: Coroutine[Any, Any, Any] | asyncio.Future[Any], writer: BatchingWriter | None
) -> int:
    """Run `work`; on its end, `exit` or a stop signal, clean up every other task."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    received: list[int] = []

    def on_signal(signum: int) -> None:
        received.append(signum)
        task.cancel()

    install_signals(loop, on_signal)
    code = 0
    try:
        result = await task
        code = result if isinstance(result, int) else 0
    except asyncio.CancelledError:
        if not received:
            raise
        name = signal.Signals(received[0]).name
        log.warning("stopping on %s: cancelling the work in progress", name)
        print(f"agent-ls: stopped by {name}", file=sys.stderr, flush=True)
        code = 128 + received[0]
    finally:
        await stop_all(exclude=task)
        if writer is not None:
            writer.flush()
    return code


def install_signals(loop: asyncio.AbstractEventLoop, on_signal: Callable[[int], object]) -> None:
    for signum in STOP_SIGNALS:
        with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):
            loop.add_signal_handler(signum, on_signal, signum)


async def stop_all(exclude: asyncio.Future[Any]) -> None:
    """Cancel every other task and wait for them (plans roll back while cancelled)."""
    current = asyncio.current_task()
    tasks = {t for t in asyncio.all_tasks() if t is not current and t is not exclude}
    for task in tasks:
        task.cancel()
    if tasks:
        _, late = await asyncio.wait(tasks, timeout=STOP_GRACE_SECONDS)
        if late:
            log.error("%d handler(s) did not stop within %.0f s", len(late), STOP_GRACE_SECONDS)
