"""One shell line run for the model: its own process group, stdin closed, a time limit.

``run_shell`` starts ``/bin/sh -c <line>`` in a new session (so the line and everything it
starts share one process group), stdout and stderr interleaved in one pipe as produced. The
output goes to ``on_output`` as it comes (text, for the editor) and into a ``CappedOutput``
(for the model). At the time limit, on cancel, and when the line itself ends, the whole group
gets SIGTERM, then SIGKILL ``KILL_AFTER`` seconds later: nothing the line started survives it
(a server left running in the background would hold the workspace and the pipe).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from actions.shell.output import CappedOutput, StreamDecoder

KILL_AFTER = 2.0
READ_BYTES = 64 * 1024
POLL_SECONDS = 0.02
SHELL = "/bin/sh"


@dataclass(frozen=True)
class CommandRun:
    """What a finished (or stopped) run did."""

    command: str
    cwd: Path
    exit_code: int | None  # None: stopped at the time limit
    seconds: float
    timed_out: bool
    output: str  # capped: head, a line saying what was left out, tail
    output_cut: bool
    output_bytes: int


async def run_shell(
    command: str,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    on_output: Callable[[str], None] | None = None,
) -> CommandRun:
    """Run ``command`` in ``cwd``; cancelling the awaiting task stops the whole group."""
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        SHELL,
        "-c",
        command,
        cwd=cwd,
        env=dict(env),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    output = CappedOutput()
    pump = asyncio.create_task(_pump(process, output, on_output))
    timed_out = False
    try:
        timed_out = not await _exited(process, timeout)
    finally:
        # Also on cancel: the group is stopped before the cancellation goes on.
        await asyncio.shield(_stop_group(process, pump))
    return CommandRun(
        command=command,
        cwd=cwd,
        exit_code=None if timed_out else process.returncode,
        seconds=time.monotonic() - started,
        timed_out=timed_out,
        output=output.text(),
        output_cut=output.cut,
        output_bytes=output.total_bytes,
    )


async def _exited(process: asyncio.subprocess.Process, timeout: float) -> bool:
    """Whether the line's shell ended within ``timeout``. Not ``process.wait()``: that also
    waits for the pipe, which a process left in the background keeps open."""
    deadline = time.monotonic() + timeout
    while process.returncode is None:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        await asyncio.sleep(min(POLL_SECONDS, left))
    return True


async def _pump(
    process: asyncio.subprocess.Process,
    output: CappedOutput,
    on_output: Callable[[str], None] | None,
) -> None:
    assert process.stdout is not None
    decoder = StreamDecoder()
    while chunk := await process.stdout.read(READ_BYTES):
        output.feed(chunk)
        if on_output is not None:
            text = decoder.decode(chunk)
            if text:
                on_output(text)
    if on_output is not None and (rest := decoder.decode(b"", final=True)):
        on_output(rest)


async def _stop_group(process: asyncio.subprocess.Process, pump: asyncio.Task[None]) -> None:
    """SIGTERM to the group, SIGKILL after ``KILL_AFTER`` s if any of it is left; then the
    rest of the output (the pipe ends when the last writer is gone)."""
    group = process.pid
    if _signal_group(group, signal.SIGTERM):
        deadline = time.monotonic() + KILL_AFTER
        while _group_alive(group) and time.monotonic() < deadline:
            await asyncio.sleep(POLL_SECONDS)
        _signal_group(group, signal.SIGKILL)
    # A process that left the group may still hold the pipe: its output is not waited for.
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(pump, KILL_AFTER)


def _group_alive(group: int) -> bool:
    """Whether a process of ``group`` still runs (a zombie, ended but not yet reaped, does
    not count: it needs no signal)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return _signal_group(group, 0)
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile, or not ours to read
        if int(fields[2]) == group and fields[0] != b"Z":
            return True
    return False


def _signal_group(group: int, sig: int) -> bool:
    """Send ``sig`` to the group; False when no process of it is left."""
    try:
        os.killpg(group, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # the group id was taken by another user's process: nothing of ours is left
    return True
