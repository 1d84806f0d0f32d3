"""The checkpoint stores of a multi-root workspace used as one history.

Each folder keeps its own store (its own lock, journal and crash recovery). A plan that
touches files of several folders records one entry in each of their stores under one plan
id; paths here are qualified by the folder's name (``frontend/src/app.ts``).

Undo takes the newest applied plan across the folders and reverts it in every folder that
recorded it; redo takes the oldest undone plan the same way. Every folder's move is planned
first (conflicts of all folders are reported together, nothing written), then applied folder
by folder; should a later folder fail, the folders already moved are moved back, so the user
sees the whole plan undone or none of it.
"""

from __future__ import annotations

import builtins
import secrets
from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace

from actions.checkpoints.recorder import PlanRecorder
from actions.checkpoints.store import BufferReader, CheckpointStore
from actions.checkpoints.types import (
    CheckpointConflict,
    CheckpointError,
    CheckpointInfo,
    FileState,
    NothingToRedo,
    NothingToUndo,
    PlanClosed,
    Transition,
    TransitionKind,
)
from actions.paths import qualified as qualify


def split(key: str, names: Iterable[str]) -> tuple[str, str]:
    """The folder name and folder-relative path of a qualified path."""
    name, _, rest = key.partition("/")
    if name in names and rest:
        return name, rest
    raise CheckpointError(f"{key}: not in a workspace folder")


class StoreGroup:
    """The stores of the workspace folders, by folder name."""

    def __init__(self, stores: Mapping[str, CheckpointStore]) -> None:
        self.stores = dict(stores)

    def begin_plan(
        self, *, description: str, session_id: str, paths: Iterable[str] = ()
    ) -> GroupRecorder:
        recorder = GroupRecorder(self, secrets.token_hex(6), description, session_id)
        recorder.touch_all(paths)
        return recorder

    def list(self) -> list[CheckpointInfo]:
        """The history of every folder, newest first; a plan of several folders is one
        entry listing the files of all of them."""
        merged: dict[str, CheckpointInfo] = {}
        for name, store in self.stores.items():
            for info in store.list():
                files = tuple(qualify(name, path) for path in info.files)
                seen = merged.get(info.id)
                merged[info.id] = (
                    replace(info, files=files)
                    if seen is None
                    else (replace(seen, files=seen.files + files, time=max(seen.time, info.time)))
                )
        return sorted(merged.values(), key=lambda info: -info.time)

    def undo(self, *, force: bool = False, buffers: BufferReader | None = None) -> Transition:
        return self._move("undo", force, buffers)

    def redo(self, *, force: bool = False, buffers: BufferReader | None = None) -> Transition:
        return self._move("redo", force, buffers)

    def _move(self, kind: TransitionKind, force: bool, buffers: BufferReader | None) -> Transition:
        moving = self._next(kind)
        planned: builtins.list[tuple[str, Transition]] = []
        places: dict[str, str] = {}
        for name in moving:
            reader = _folder_reader(name, buffers)
            plan = self.stores[name].plan_undo if kind == "undo" else self.stores[name].plan_redo
            try:
                planned.append((name, plan(force=force, buffers=reader)))
            except CheckpointConflict as conflict:
                places |= {
                    qualify(name, path): conflict.places.get(path, "") for path in conflict.paths
                }
        if places:
            raise CheckpointConflict(kind, list(places), {k: v for k, v in places.items() if v})
        done: builtins.list[tuple[str, Transition]] = []
        try:
            for name, transition in planned:
                done.append((name, self.stores[name].apply(transition)))
        except CheckpointError:
            self._move_back(kind, done)
            raise
        return _joined(kind, done)

    def _next(self, kind: TransitionKind) -> builtins.list[str]:
        """The folders whose next `kind` is the plan to move (newest applied for undo,
        oldest undone for redo)."""
        candidates: dict[str, CheckpointInfo] = {}
        for name, store in self.stores.items():
            history = store.list()  # newest first
            if kind == "undo":
                found = next((info for info in history if info.state == "applied"), None)
            else:
                undone = [info for info in history if info.state == "undone"]
                found = undone[-1] if undone else None
            if found is not None:
                candidates[name] = found
        if not candidates:
            raise NothingToUndo() if kind == "undo" else NothingToRedo()
        pick = max if kind == "undo" else min
        chosen = pick(candidates.values(), key=lambda info: info.time)
        return [name for name, info in candidates.items() if info.id == chosen.id]

    def _move_back(self, kind: TransitionKind, done: builtins.list[tuple[str, Transition]]) -> None:
        for name, _ in reversed(done):
            store = self.stores[name]
            (store.redo if kind == "undo" else store.undo)(force=True)


def _folder_reader(name: str, buffers: BufferReader | None) -> BufferReader | None:
    if buffers is None:
        return None
    return lambda path: buffers(qualify(name, path))


def _joined(kind: TransitionKind, moved: list[tuple[str, Transition]]) -> Transition:
    changes = tuple(
        FileState(qualify(name, change.path), change.content, change.executable)
        for name, transition in moved
        for change in transition.changes
    )
    overridden = tuple(
        qualify(name, path) for name, transition in moved for path in transition.overridden
    )
    checkpoint = moved[0][1].checkpoint_id if moved else ""
    return Transition(checkpoint, changes, kind, overridden)


class GroupRecorder:
    """One plan over several folders: a `PlanRecorder` per folder it touches, one plan id."""

    def __init__(self, group: StoreGroup, plan_id: str, description: str, session_id: str):
        self.group = group
        self.id = plan_id
        self.description = description
        self.session_id = session_id
        self.recorders: dict[str, PlanRecorder] = {}
        self._closed = False

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(
            qualify(name, path) for name, rec in self.recorders.items() for path in rec.paths
        )

    @property
    def closed(self) -> bool:
        return self._closed

    def _recorder(self, name: str) -> PlanRecorder:
        if self._closed:
            raise PlanClosed(f"plan {self.id} is already closed")
        if name not in self.recorders:
            self.recorders[name] = self.group.stores[name].begin_plan(
                description=self.description, session_id=self.session_id, plan_id=self.id
            )
        return self.recorders[name]

    def touch(self, path: str) -> None:
        name, rest = split(path, self.group.stores)
        self._recorder(name).touch(rest)

    def touch_all(self, paths: Iterable[str]) -> None:
        by_folder: dict[str, list[str]] = {}
        for path in paths:
            name, rest = split(path, self.group.stores)
            by_folder.setdefault(name, []).append(rest)
        for name, rests in by_folder.items():
            self._recorder(name).touch_all(rests)

    def touch_captured(self, images: Mapping[str, tuple[bytes | None, bool]]) -> None:
        """Pre-images captured by the caller (qualified path -> (content, executable))."""
        by_folder: dict[str, dict[str, tuple[bytes | None, bool]]] = {}
        for path, image in images.items():
            name, rest = split(path, self.group.stores)
            by_folder.setdefault(name, {})[rest] = image
        for name, captured in by_folder.items():
            self._recorder(name).touch_captured(captured)

    def check_content(self, path: str, size: int) -> None:
        name, rest = split(path, self.group.stores)
        self._recorder(name).check_content(rest, size)

    def commit(self) -> CheckpointInfo | None:
        """Commit every folder's part; the plan's entry (None when nothing changed)."""
        infos = [(name, rec.commit()) for name, rec in self.recorders.items()]
        self._closed = True
        found = [(name, info) for name, info in infos if info is not None]
        if not found:
            return None
        files = tuple(qualify(name, path) for name, info in found for path in info.files)
        return replace(found[0][1], files=files)

    def rollback(self, only: Collection[str] | None = None) -> Transition:
        """Every folder's part rolled back (only the qualified paths in `only` when given)."""
        by_folder: dict[str, set[str]] | None = None
        if only is not None:
            by_folder = {name: set() for name in self.recorders}
            for path in only:
                name, rest = split(path, self.group.stores)
                by_folder.setdefault(name, set()).add(rest)
        moved = [
            (name, rec.rollback(None if by_folder is None else by_folder[name]))
            for name, rec in self.recorders.items()
            if not rec.closed
        ]
        self._closed = True
        return _joined("rollback", moved) if moved else Transition(self.id, (), "rollback")

    def discard(self) -> None:
        for recorder in self.recorders.values():
            if not recorder.closed:
                recorder.discard()
        self._closed = True
