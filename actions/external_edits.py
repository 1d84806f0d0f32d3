"""Undo for files a run changed outside our edits (a `run_command` line, or the `cli` provider's
coding agent editing the workspace itself): scan before, compare after, record one checkpoint.

In a git work tree the scan asks git's stat cache what is dirty (`actions.change_scan`), holding
only those files' bytes; elsewhere `Snapshot` holds every listed file (tracked and untracked,
.gitignore honoured). Either way secret files the store refuses are never read, and files over
the checkpoint size cap or beyond `MAX_HELD_BYTES` in all are not held (`actions.held_files`):
a change to one is reported, not recorded. `record_changes` records what the run created,
changed or deleted as one plan in the checkpoint store, with the held contents as pre-images, so
`agent.undo` restores them exactly; a path the store refuses as it is now (turned into a folder
or a symbolic link, grown over the cap) is reported with its reason instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from actions.change_scan import GitScan
from actions.checkpoints import CheckpointStore
from actions.checkpoints.paths import check_rel_path
from actions.checkpoints.types import CheckpointInfo, CheckpointRefused
from actions.files.listing import list_files_now
from actions.held_files import (
    MAX_FILE_BYTES,
    Baseline,
    Changes,
    Held,
    PreImage,
    Scope,
    diff,
    signature,
)
from actions.paths import Workspace

T = TypeVar("T")
SCAN_LIMIT = 200_000
TOO_LARGE = "too large to keep a copy"


class Scan(Protocol):
    """The workspace as it was before a run."""

    def changes(self) -> Changes: ...

    def close(self) -> None: ...


@dataclass
class Snapshot:
    """Every listed file held (the scan outside git work trees)."""

    scope: Scope
    held: Held

    @classmethod
    def take(cls, scope: Scope) -> Snapshot:
        snapshot = cls(scope, Held(scope.max_file_bytes))
        snapshot.held.hold(scope.root, listed(scope))
        return snapshot

    def changes(self) -> Changes:
        candidates = [*listed(self.scope), *self.held.paths()]
        return diff(self.scope.root, candidates, self.held, _absent)

    def close(self) -> None:
        pass


def _absent(paths: list[str]) -> Baseline:
    return Baseline(dict.fromkeys(paths))  # not listed before: created by the run


def scope_of(workspace: Workspace, store: CheckpointStore) -> Scope:
    """What a run in `workspace` recorded in `store` may cover."""
    cap = min(MAX_FILE_BYTES, store.policy.max_file_bytes)
    return Scope(workspace, store.policy.secrets, cap)


def scan(scope: Scope) -> Scan:
    """The cheapest scan that sees every change: git's in a work tree, else a snapshot."""
    found = GitScan.take(scope)
    return found if found is not None else Snapshot.take(scope)


def listed(scope: Scope) -> list[str]:
    """The workspace's files that undo may cover (no secrets, nothing ignored)."""
    listing = list_files_now(scope.root, "", lambda _: False, 30.0, SCAN_LIMIT)
    return [path for path in listing.files if scope.covers(path)]


def record_changes(
    workspace: Workspace,
    store: CheckpointStore,
    before: Scan,
    description: str,
    session_id: str,
) -> tuple[CheckpointInfo | None, list[str]]:
    """One checkpoint for what changed since `before` (None: nothing changed); the paths that
    changed but could not be recorded, each with its reason ("big.bin (too large to keep a
    copy)"): too big to hold, or refused by the store as they are now."""
    changes = before.changes()
    pre, refused = _recordable(store, changes.pre)
    unrecorded = sorted([*(f"{path} ({TOO_LARGE})" for path in changes.unrecorded), *refused])
    if not pre:
        return None, unrecorded
    recorder = store.begin_plan(description=description, session_id=session_id)
    try:
        recorder.touch_captured(pre)
        return recorder.commit(), unrecorded
    except BaseException:
        recorder.discard()  # the run's edits stay; only their undo entry is lost
        raise


def _recordable(
    store: CheckpointStore, pre: dict[str, PreImage]
) -> tuple[dict[str, PreImage], list[str]]:
    """The pre-images the store accepts for the files as they are now, and the others, each
    with its reason (turned into a folder or a symbolic link, grown over the size cap...)."""
    policy = store.policy
    refused = dict.fromkeys(policy.ignored(pre), "ignored by .gitignore now")
    for path in pre:
        reason = refused.get(path) or _refusal(store, path)
        if reason is not None:
            refused[path] = reason
    kept = {path: image for path, image in pre.items() if path not in refused}
    return kept, [f"{path} ({reason})" for path, reason in refused.items()]


def _refusal(store: CheckpointStore, path: str) -> str | None:
    policy = store.policy
    image = signature(store.workspace / path)  # None: absent, or not a regular file
    if image is not None and image[0] > policy.max_file_bytes:
        return TOO_LARGE
    try:
        policy.check_secret(check_rel_path(path))
        policy.check_file(path)
    except CheckpointRefused as refused:
        return refused.reason
    return None


async def run_capturing(
    workspace: Workspace,
    store: CheckpointStore,
    session_id: str,
    description: str,
    run: Callable[[], Awaitable[T]],
) -> tuple[T, CheckpointInfo | None, list[str]]:
    """`run()` with the workspace scanned before and its changes recorded after, also when it
    fails or is cancelled (what the run wrote until then stays undoable)."""
    before = await asyncio.to_thread(scan, scope_of(workspace, store))
    try:
        result = await run()
    finally:
        try:
            recorded = await asyncio.to_thread(
                record_changes, workspace, store, before, description, session_id
            )
        finally:
            before.close()
    return result, recorded[0], recorded[1]
