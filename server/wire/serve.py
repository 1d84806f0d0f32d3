"""Run a connection over stdio (until EOF, `exit`, SIGINT or SIGTERM) or serve TCP clients.

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


def run_tcp(make_protocol: Callable[[], JsonRPCProtocol], host: str, port: int) -> int:
    """Serve every client that connects to a loopback socket, each with a protocol (and so a
    server state) of its own from `make_protocol`, several at once; a client that leaves
    (EOF or `exit`) ends only its connection. Prints "listening on HOST:PORT" on stderr and
    runs until SIGINT / SIGTERM."""

    async def main() -> int:
        forever: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        clients = 0

        async def on_client(reader: asyncio.StreamReader, stream: asyncio.StreamWriter) -> None:
            nonlocal clients
            clients += 1
            peer = stream.get_extra_info("peername")
            log.info("client %d connected from %s", clients, peer)
            protocol = make_protocol()
            writer = BatchingWriter(stream.write, stream.close)
            protocol.set_writer(writer)
            frames = FrameReader(lambda: asyncio.ensure_future(reader.read(65536)))
            try:
                code = await Connection(protocol).run(frames)
                log.info("client from %s left (%d)", peer, code)
            finally:
                writer.flush()
                with contextlib.suppress(OSError):
                    stream.close()

        server = await asyncio.start_server(on_client, host, port)
        bound = server.sockets[0].getsockname()
        print(f"agent-ls: listening on {bound[0]}:{bound[1]}", file=sys.stderr, flush=True)
        async with server:
            return await until_stopped(forever, None)

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
