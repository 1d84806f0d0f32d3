"""CheckpointStore: the undo history of one workspace (undo, redo, list, prune).

Builds on `StoreFiles` (journal.py): plans are recorded by `PlanRecorder` (recorder.py),
undo / redo / rollback run through the write-ahead journal of recovery.py.
"""

from __future__ import annotations

import builtins
import os
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path

from actions.checkpoints.journal import (
    PRIVATE_DIR,
    ApplyJournal,
    Entry,
    StoreFiles,
    StoreState,
    Target,
    make_private_dir,
    tighten,
    write_private,
)
from actions.checkpoints.objects import blob_sha
from actions.checkpoints.paths import PathPolicy
from actions.checkpoints.recorder import PlanRecorder
from actions.checkpoints.recovery import apply_journal, drop_orphans, recover
from actions.checkpoints.types import (
    CheckpointConflict,
    CheckpointError,
    CheckpointInfo,
    FileState,
    NothingToRedo,
    NothingToUndo,
    StaleTransition,
    Transition,
    TransitionKind,
)
from actions.files.gitenv import clean_git_env, run_git
from actions.paths import SecretPolicy
from actions.private import default_store_dir

MAX_FILE_BYTES = 5 * 2**20  # files larger than this are refused (their copies would bloat)
# The text of a path's open editor buffer (UTF-8), or None when the file is not open.
BufferReader = Callable[[str], bytes | None]


class CheckpointStore(StoreFiles):
    """The undo history of one workspace. Opening it recovers an interrupted operation."""

    def __init__(
        self,
        workspace: Path,
        *,
        store_dir: Path | None = None,
        keep: int = 50,
        max_file_bytes: int = MAX_FILE_BYTES,
        secret_allow: Sequence[str] = (),
    ) -> None:
        """`secret_allow`: gitignore globs of secret files the user allowed (see
        `actions.paths`); every other secret file is refused and never stored."""
        real = Path(os.path.realpath(workspace))
        if not real.is_dir():
            raise CheckpointError(f"workspace {workspace} is not a folder")
        store_path = Path(os.path.realpath(store_dir or default_store_dir(real)))
        policy = PathPolicy(real, store_path, max_file_bytes, SecretPolicy(secret_allow))
        super().__init__(real, store_path, keep=keep, policy=policy)
        loose = self.store_dir.is_dir() and self.store_dir.stat().st_mode & 0o077
        make_private_dir(self.store_dir)
        if loose:
            tighten(self.store_dir)  # made by a version that left it readable by others
        self.plans_dir.mkdir(mode=PRIVATE_DIR, exist_ok=True)
        with self.lock():
            self.objects.init()
            marker = self.store_dir / "workspace"
            if not marker.exists():
                write_private(marker, os.fsencode(self.workspace) + b"\n")
            self.last_recovery = recover(self)

    # -- public operations ----------------------------------------------------------------------
    def begin_plan(
        self,
        *,
        description: str,
        session_id: str,
        paths: Sequence[str] = (),
        plan_id: str | None = None,
    ) -> PlanRecorder:
        """Start recording a plan; pre-images of `paths` are captured now. `plan_id`: the id
        of a plan that spans several stores (one per folder of a multi-root workspace)."""
        return PlanRecorder(self, plan_id or secrets.token_hex(6), description, session_id, paths)

    def plan_undo(self, *, force: bool = False, buffers: BufferReader | None = None) -> Transition:
        """What undo would write (pre-images of the last applied plan); writes nothing."""
        with self.lock(exclusive=False):
            return self._plan("undo", self.state(), force, buffers)[0]

    def plan_redo(self, *, force: bool = False, buffers: BufferReader | None = None) -> Transition:
        """What redo would write (post-images of the last undone plan); writes nothing."""
        with self.lock(exclusive=False):
            return self._plan("redo", self.state(), force, buffers)[0]

    def apply(self, transition: Transition) -> Transition:
        """Write a planned undo/redo to disk (journaled) and move the history."""
        with self.lock():
            try:
                entry, index = self._next_entry(transition.kind, self.state())
            except (NothingToUndo, NothingToRedo) as empty:
                raise StaleTransition(f"{transition.kind} is stale: {empty}") from empty
            if entry.id != transition.checkpoint_id:
                raise StaleTransition(
                    f"{transition.kind} of {transition.checkpoint_id} is stale: the history moved"
                )
            apply_journal(self, self._journal_for(transition.kind, entry, index))
        return transition

    def undo(self, *, force: bool = False, buffers: BufferReader | None = None) -> Transition:
        """Restore every file the last applied plan touched to its pre-plan content."""
        return self._move("undo", force, buffers)

    def redo(self, *, force: bool = False, buffers: BufferReader | None = None) -> Transition:
        """Re-apply the last undone plan."""
        return self._move("redo", force, buffers)

    def list(self) -> list[CheckpointInfo]:
        """The history, newest first."""
        with self.lock(exclusive=False):
            state = self.state()
        infos = [_info(entry, index < state.applied) for index, entry in enumerate(state.entries)]
        return infos[::-1]

    def prune(self) -> None:
        """Delete refs, packs and plan files that no history entry or running plan uses."""
        with self.lock():
            drop_orphans(self)

    # -- undo / redo ------------------------------------------------------------------------------
    def _move(self, kind: TransitionKind, force: bool, buffers: BufferReader | None) -> Transition:
        with self.lock():
            transition, entry, index = self._plan(kind, self.state(), force, buffers)
            apply_journal(self, self._journal_for(kind, entry, index))
        return transition

    def _next_entry(self, kind: TransitionKind, state: StoreState) -> tuple[Entry, int]:
        if kind == "undo":
            if state.applied == 0:
                raise NothingToUndo()
            return state.entries[state.applied - 1], state.applied - 1
        if kind == "redo":
            if state.applied >= len(state.entries):
                raise NothingToRedo()
            return state.entries[state.applied], state.applied
        raise StaleTransition("a rollback is applied through its PlanRecorder")

    def _plan(
        self,
        kind: TransitionKind,
        state: StoreState,
        force: bool,
        buffers: BufferReader | None,
    ) -> tuple[Transition, Entry, int]:
        """The transition to the other side of the next entry. A path whose disk content, or
        open editor buffer, differs from what the entry left there is a conflict (named,
        with where it changed) unless `force`."""
        entry, index = self._next_entry(kind, state)
        changed: dict[str, str] = {}
        changes: builtins.list[FileState] = []
        for record in entry.files:
            expected = record.post if kind == "undo" else record.pre
            where = self._changed_where(record.path, expected, buffers)
            if where:
                changed[record.path] = where
            sha, executable = (
                (record.pre, record.pre_exec) if kind == "undo" else (record.post, record.post_exec)
            )
            data = None if sha is None else self.objects.read_blob(sha, entry.pack)
            changes.append(FileState(record.path, data, executable))
        if changed and not force:
            raise CheckpointConflict(kind, builtins.list(changed), changed)
        return Transition(entry.id, tuple(changes), kind, tuple(changed)), entry, index

    def _changed_where(
        self, path: str, expected: str | None, buffers: BufferReader | None
    ) -> str | None:
        """ "on disk", "in the editor", both, or None when `path` is as the entry left it.
        A buffer of a file the entry left absent is a stale view: only the disk counts."""
        places = []
        if self.disk_sha(path) != expected:
            places.append("on disk")
        text = buffers(path) if buffers is not None and expected is not None else None
        if text is not None and blob_sha(text) != expected:
            places.append("in the editor")
        return " and ".join(places) or None

    def _journal_for(self, kind: TransitionKind, entry: Entry, index: int) -> ApplyJournal:
        undo = kind == "undo"
        targets = tuple(
            Target(
                path=record.path,
                before=self.disk_sha(record.path),
                after=record.pre if undo else record.post,
                executable=record.pre_exec if undo else record.post_exec,
            )
            for record in entry.files
        )
        return ApplyJournal(
            kind=kind,
            checkpoint_id=entry.id,
            targets=targets,
            missing_dirs=self._missing_dirs(entry, index) if undo else entry.post_missing_dirs,
            applied_after=index if undo else index + 1,
            pack=entry.pack,
        )

    def _missing_dirs(self, entry: Entry, index: int) -> tuple[str, ...]:
        """Folders to remove (where empty) when undoing `entry`: those absent before it, and
        those absent before the plans already undone above it. Two overlapping plans (two
        sessions) can create one folder: undoing the later-committed one cannot remove it
        while the other's files are in it; undoing the other must."""
        folders = set(entry.pre_missing_dirs)
        for later in self.state().entries[index + 1 :]:
            folders.update(later.pre_missing_dirs)
        return tuple(sorted(folders))

    def git(self, args: Sequence[str], data: bytes = b"") -> str:
        """Run git on the store (explicit GIT_DIR, its own index, no user config or hooks)."""
        env = clean_git_env(
            {
                "GIT_DIR": str(self.objects.git_dir),
                "GIT_INDEX_FILE": str(self.store_dir / "index"),
                "GIT_WORK_TREE": str(self.workspace),
                "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_CONFIG_GLOBAL": os.devnull,
            }
        )
        done = run_git(args, env=env, cwd=self.store_dir, data=data)
        if done.returncode != 0:
            raise CheckpointError(f"git {' '.join(args)} failed: {done.stderr.decode().strip()}")
        return done.stdout.decode()


def _info(entry: Entry, applied: bool) -> CheckpointInfo:
    return CheckpointInfo(
        id=entry.id,
        time=entry.time,
        description=entry.description,
        session_id=entry.session_id,
        files=tuple(record.path for record in entry.files),
        state="applied" if applied else "undone",
    )
