"""Undo for files an external agent wrote (the `cli` provider runs a coding agent that edits
the workspace itself): snapshot before the run, compare after, record one checkpoint.

`Snapshot.take` reads every listed file (tracked and untracked, .gitignore honoured, secret
files and files over the checkpoint size cap left out) up to `MAX_SNAPSHOT_BYTES` in total;
`record_changes` finds what the run created, changed or deleted and records it as one plan in
the checkpoint store, with the snapshot's contents as pre-images, so `agent.undo` restores
them exactly. Files the snapshot could not hold (over the budget) are reported, not recorded.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from actions.checkpoints import CheckpointStore
from actions.checkpoints.types import CheckpointInfo
from actions.files.listing import list_files_now
from actions.paths import Workspace

T = TypeVar("T")
MAX_SNAPSHOT_BYTES = 256 * 2**20
MAX_FILE_BYTES = 5 * 2**20
SCAN_LIMIT = 200_000


@dataclass
class Snapshot:
    files: dict[str, tuple[bytes, bool]] = field(default_factory=dict)
    skipped: set[str] = field(default_factory=set)  # listed but too big to hold

    @classmethod
    def take(cls, workspace: Workspace) -> Snapshot:
        snapshot = cls()
        budget = MAX_SNAPSHOT_BYTES
        for path in listed(workspace):
            content = _read(workspace.root / path)
            if content is None:
                continue
            data, executable = content
            if len(data) > MAX_FILE_BYTES or len(data) > budget:
                snapshot.skipped.add(path)
                continue
            budget -= len(data)
            snapshot.files[path] = (data, executable)
        return snapshot


def listed(workspace: Workspace) -> list[str]:
    """The workspace's files that undo may cover (no secrets, nothing ignored)."""
    root = workspace.root
    listing = list_files_now(root, "", lambda _: False, 30.0, SCAN_LIMIT)
    return [path for path in listing.files if not workspace.is_denied(path)]


def _read(path: Path) -> tuple[bytes, bool] | None:
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode):
            return None
        return path.read_bytes(), bool(info.st_mode & stat.S_IXUSR)
    except OSError:
        return None


def record_changes(
    workspace: Workspace,
    store: CheckpointStore,
    before: Snapshot,
    description: str,
    session_id: str,
) -> tuple[CheckpointInfo | None, list[str]]:
    """One checkpoint for what changed since `before` (None: nothing changed); the paths that
    changed but could not be recorded (too big for the snapshot)."""
    after = set(listed(workspace))
    pre: dict[str, tuple[bytes | None, bool]] = {}
    unrecorded: list[str] = []
    for path in sorted(after | set(before.files) | before.skipped):
        if path in before.skipped:
            if _read(workspace.root / path) is not None or path not in after:
                unrecorded.append(path)
            continue
        old = before.files.get(path)
        now = _read(workspace.root / path)
        if old == now:
            continue
        pre[path] = (old[0], old[1]) if old is not None else (None, False)
    if not pre:
        return None, unrecorded
    recorder = store.begin_plan(description=description, session_id=session_id)
    try:
        recorder.touch_captured(pre)
        return recorder.commit(), unrecorded
    except BaseException:
        recorder.discard()  # the agent's edits stay; only their undo entry is lost
        raise


async def run_capturing(
    workspace: Workspace,
    store: CheckpointStore,
    session_id: str,
    description: str,
    run: Callable[[], Awaitable[T]],
) -> tuple[T, CheckpointInfo | None, list[str]]:
    """`run()` with the workspace snapshotted before and its changes recorded after, also
    when it fails or is cancelled (what the agent wrote until then stays undoable)."""
    before = await asyncio.to_thread(Snapshot.take, workspace)
    try:
        result = await run()
    finally:
        recorded = await asyncio.to_thread(
            record_changes, workspace, store, before, description, session_id
        )
    return result, recorded[0], recorded[1]
