"""One vector graph build at a time per SQLite index, whatever the process, and its progress
seen by the others.

The builder holds an exclusive lock on ``<db>.graph-lock`` and writes how far it is to
``<db>.graph-progress`` (``added total``), so that `agent-ls doctor`, `agent-ls index` or the
server shows the progress of a build running elsewhere (``graph_process``: the child
`agent-ls index` leaves behind); a process that wants the same graph meanwhile waits for the
lock, then uses the file the other one saved (``sqlite_ann``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from actions.private import PRIVATE_FILE

LOCK_POLL = 0.2  # seconds between tries while another process builds


def lock_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".graph-lock")


def progress_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".graph-progress")


@contextlib.contextmanager
def build_lock(db_path: Path, stop: threading.Event | None = None) -> Iterator[bool]:
    """Hold the index's graph lock, waiting for another process's build to end first;
    False (not held) when ``stop`` is set meanwhile (a closing store never hangs on it)."""
    fd = os.open(lock_path(db_path), os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if stop is not None and stop.wait(LOCK_POLL):
                    yield False
                    return
                if stop is None:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    break
        try:
            yield True
        finally:
            with contextlib.suppress(OSError):
                progress_path(db_path).unlink()
    finally:
        os.close(fd)  # releases the lock


def report_progress(db_path: Path, added: int, total: int) -> None:
    """Write how far the build holding the lock is (read by other processes)."""
    path = progress_path(db_path)
    aside = path.with_name(path.name + ".tmp")
    with contextlib.suppress(OSError):
        aside.write_text(f"{added} {total}")
        os.chmod(aside, PRIVATE_FILE)
        os.replace(aside, path)


def building_elsewhere(db_path: Path) -> tuple[int, int] | None:
    """``(added, total)`` of a build another process runs now; None when none runs."""
    try:
        fd = os.open(lock_path(db_path), os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            added, total = progress_path(db_path).read_text().split()
            return int(added), int(total)
        except (OSError, ValueError):
            return 0, 0  # started: no batch added yet
    finally:
        os.close(fd)
    return None
