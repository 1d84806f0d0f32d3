"""Persistent records of the checkpoint store, locks, workspace file I/O and kill points.

Files in the store directory (next to the shadow `git/` directory):
- `state.json`: the history — entries oldest first and how many are applied (the rest
  form the redo stack). Replaced atomically (temp file + rename) under the lock.
- `journal.json`: the write-ahead record of one undo / redo / rollback in flight: every
  target path with its blob id before and after. Written before the first workspace file,
  deleted after the last; opening the store rolls a leftover one forward.
- `plans/<id>.json` + `plans/<id>.lock` + `plans/<id>.<n>.pack`: a plan in progress
  (pre-images recorded so far; their contents in one pack file per `touch` batch).
  The recording process holds an flock on the `.lock` file; a journal whose lock can be
  taken belongs to a dead process and is rolled back to its pre-images on open.
- `lock`: flock taken around every mutation, so two processes never interleave.

The store holds old contents of the user's files: every folder is 0700 and every file 0600
(packs 0400), so it is never more readable than the files it copies.

`StoreFiles` is that layout as an object: the narrow interface the recorder and the
recovery work through, so neither needs `CheckpointStore` (which builds on it).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from actions.checkpoints.objects import ObjectStore, blob_sha
from actions.checkpoints.pack import read_entry
from actions.checkpoints.paths import PathPolicy
from actions.checkpoints.types import CheckpointError
from actions.diskio import write_atomic
from actions.private import PRIVATE_DIR as PRIVATE_DIR
from actions.private import PRIVATE_FILE
from actions.private import make_private_dir as make_private_dir
from actions.private import tighten as tighten

KILL_ENV = "AGENT_LS_CHECKPOINT_KILL_AT"


def kill_point(name: str) -> None:
    """Crash-test hook: SIGKILL this process when AGENT_LS_CHECKPOINT_KILL_AT names `name`."""
    if os.environ.get(KILL_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class PreImage(_Record):
    path: str
    sha: str | None  # None: the file did not exist
    executable: bool = False
    batch: str | None = None  # file under plans/ (a git pack) holding the blob
    offset: int = 0  # of the blob in that pack


class FileRecord(_Record):
    path: str
    pre: str | None
    post: str | None
    pre_exec: bool = False
    post_exec: bool = False


class Entry(_Record):
    id: str
    commit: str
    pack: str  # pack-<sum>: the pack holding this entry's blobs, trees and commit
    time: float
    description: str
    session_id: str
    files: tuple[FileRecord, ...]
    pre_missing_dirs: tuple[str, ...] = ()
    post_missing_dirs: tuple[str, ...] = ()


class StoreState(_Record):
    version: int = 1
    entries: tuple[Entry, ...] = ()
    applied: int = 0  # entries[:applied] are applied, entries[applied:] can be redone


class PlanJournal(_Record):
    id: str
    description: str
    session_id: str
    started: float
    files: tuple[PreImage, ...] = ()
    pre_missing_dirs: tuple[str, ...] = ()


class Target(_Record):
    path: str
    before: str | None  # blob id on disk when the journal was written
    after: str | None  # blob id to write; None deletes the file
    executable: bool = False


class ApplyJournal(_Record):
    kind: Literal["undo", "redo", "rollback"]
    checkpoint_id: str
    targets: tuple[Target, ...]
    missing_dirs: tuple[str, ...] = ()  # folders absent in the target state
    applied_after: int | None = None  # new StoreState.applied, None: history unchanged
    drop_plan: str | None = None  # plan journal to delete once done (rollback)
    pack: str | None = None  # pack of the `after` blobs (None: the drop_plan's pre-images)


# -- files of the store -----------------------------------------------------------------------
_M = TypeVar("_M", bound="_Record")


def load_model(path: Path, model: type[_M]) -> _M | None:
    try:
        return model.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        return None


def save_model(path: Path, record: _Record) -> None:
    write_private(path, record.model_dump_json().encode())


def write_private(path: Path, data: bytes) -> None:
    """Replace a file of the store atomically, readable by its owner only."""
    write_atomic(path, data, durable=False, mode=PRIVATE_FILE)


@contextlib.contextmanager
def locked(path: Path, *, exclusive: bool = True) -> Iterator[None]:
    """Hold an flock on `path` (created if missing) for the duration of the block."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)


def hold_lock(path: Path) -> int:
    """Take an flock that lives as long as the returned descriptor (and the process)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def owner_alive(path: Path) -> bool:
    """Is some open descriptor (a live process) holding the lock on `path`?"""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


# -- workspace files --------------------------------------------------------------------------
def read_workspace_file(workspace: Path, path: str) -> tuple[bytes | None, bool]:
    """(content, executable) of a workspace file; (None, False) when absent."""
    try:
        with open(workspace / path, "rb") as handle:
            mode = os.fstat(handle.fileno()).st_mode
            return handle.read(), bool(mode & 0o100)
    except (FileNotFoundError, NotADirectoryError):
        return None, False


def set_workspace_file(
    workspace: Path, path: str, data: bytes | None, executable: bool | None
) -> None:
    """Write (atomically) or delete one workspace file."""
    target = workspace / path
    if data is None:
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            target.unlink()
        return
    write_atomic(target, data, executable=executable, durable=False)


def remove_empty_dirs(workspace: Path, dirs: Iterable[str]) -> None:
    """Remove these folders where empty, deepest first (they did not exist in the target)."""
    for rel in sorted(set(dirs), key=lambda name: name.count("/"), reverse=True):
        with contextlib.suppress(OSError):
            (workspace / rel).rmdir()


# -- the store directory as seen by the recorder and the recovery -------------------------------
class StoreFiles:
    """The files of one store: history, plan journals, objects, lock, and the path policy."""

    def __init__(self, workspace: Path, store_dir: Path, *, keep: int, policy: PathPolicy) -> None:
        self.workspace = workspace
        self.store_dir = store_dir
        self.keep = max(1, keep)
        self.objects = ObjectStore(store_dir / "git")
        self.policy = policy
        self.plans_dir = store_dir / "plans"

    def lock(self, *, exclusive: bool = True) -> contextlib.AbstractContextManager[None]:
        return locked(self.store_dir / "lock", exclusive=exclusive)

    def state(self) -> StoreState:
        return load_model(self.store_dir / "state.json", StoreState) or StoreState()

    def save_state(self, state: StoreState) -> None:
        save_model(self.store_dir / "state.json", state)

    def disk_sha(self, path: str) -> str | None:
        content, _exec = read_workspace_file(self.workspace, path)
        return None if content is None else blob_sha(content)

    def plan_paths(self, plan_id: str) -> tuple[Path, Path]:
        return self.plans_dir / f"{plan_id}.json", self.plans_dir / f"{plan_id}.lock"

    def forget_plan(self, plan_id: str) -> None:
        """Delete a finished plan's journal, lock and pre-image files."""
        journal_path, lock_path = self.plan_paths(plan_id)
        for batch in self.plans_dir.glob(f"{plan_id}.*.pack"):
            batch.unlink(missing_ok=True)
        journal_path.unlink(missing_ok=True)
        lock_path.unlink(missing_ok=True)

    def read_pre(self, image: PreImage) -> bytes | None:
        """The pre-image content recorded for one path of a running plan."""
        if image.sha is None or image.batch is None:
            return None
        kind, body = read_entry((self.plans_dir / image.batch).read_bytes(), image.offset)
        if kind != b"blob":
            raise CheckpointError(f"plan file {image.batch} is damaged")
        return body
