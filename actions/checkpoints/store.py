"""CheckpointStore: the undo history of one workspace (undo, redo, list, prune).

Builds on `StoreFiles` (journal.py): plans are recorded by `PlanRecorder` (recorder.py),
undo / redo / rollback run through the write-ahead journal of recovery.py.
"""

from __future__ import annotations

import builtins
import hashlib
import os
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path

from actions.checkpoints.journal import ApplyJournal, Entry, StoreFiles, StoreState, Target
from actions.checkpoints.objects import blob_sha
from actions.checkpoints.paths import clean_git_env, run_git
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

STORE_ENV = "AGENT_LS_CHECKPOINT_DIR"
ContentReader = Callable[[str], bytes | None]


def default_store_dir(workspace: Path) -> Path:
    """Where the store of `workspace` lives unless a `store_dir` is given."""
    base = os.environ.get(STORE_ENV)
    if base:
        root = Path(base)
    else:
        cache = os.environ.get("XDG_CACHE_HOME", "")
        cache_root = Path(cache) if os.path.isabs(cache) else Path.home() / ".cache"
        root = cache_root / "agent-ls" / "checkpoints"
    key = hashlib.sha256(os.fsencode(os.path.realpath(workspace))).hexdigest()[:20]
    return root / key


class CheckpointStore(StoreFiles):
    """The undo history of one workspace. Opening it recovers an interrupted operation."""

    def __init__(
        self,
        workspace: Path,
        *,
        store_dir: Path | None = None,
        keep: int = 50,
        max_file_bytes: int = 5 * 2**20,
    ) -> None:
        real = Path(os.path.realpath(workspace))
        if not real.is_dir():
            raise CheckpointError(f"workspace {workspace} is not a folder")
        store_path = Path(os.path.realpath(store_dir or default_store_dir(real)))
        super().__init__(real, store_path, keep=keep, max_file_bytes=max_file_bytes)
        self.plans_dir.mkdir(parents=True, exist_ok=True)
        with self.lock():
            self.objects.init()
            marker = self.store_dir / "workspace"
            if not marker.exists():
                marker.write_text(str(self.workspace) + "\n")
            self.last_recovery = recover(self)

    # -- public operations ----------------------------------------------------------------------
    def begin_plan(
        self, *, description: str, session_id: str, paths: Sequence[str] = ()
    ) -> PlanRecorder:
        """Start recording a plan; pre-images of `paths` are captured now."""
        return PlanRecorder(self, secrets.token_hex(6), description, session_id, paths)

    def plan_undo(
        self, *, force: bool = False, current_content: ContentReader | None = None
    ) -> Transition:
        """What undo would write (pre-images of the last applied plan); writes nothing."""
        with self.lock(exclusive=False):
            return self._plan("undo", self.state(), force, current_content)[0]

    def plan_redo(
        self, *, force: bool = False, current_content: ContentReader | None = None
    ) -> Transition:
        """What redo would write (post-images of the last undone plan); writes nothing."""
        with self.lock(exclusive=False):
            return self._plan("redo", self.state(), force, current_content)[0]

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

    def undo(
        self, *, force: bool = False, current_content: ContentReader | None = None
    ) -> Transition:
        """Restore every file the last applied plan touched to its pre-plan content."""
        return self._move("undo", force, current_content)

    def redo(
        self, *, force: bool = False, current_content: ContentReader | None = None
    ) -> Transition:
        """Re-apply the last undone plan."""
        return self._move("redo", force, current_content)

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
    def _move(
        self, kind: TransitionKind, force: bool, current_content: ContentReader | None
    ) -> Transition:
        with self.lock():
            transition, entry, index = self._plan(kind, self.state(), force, current_content)
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
        current_content: ContentReader | None,
    ) -> tuple[Transition, Entry, int]:
        entry, index = self._next_entry(kind, state)
        changed: builtins.list[str] = []
        changes: builtins.list[FileState] = []
        for record in entry.files:
            expected = record.post if kind == "undo" else record.pre
            if current_content is None:
                current = self.disk_sha(record.path)
            else:
                content = current_content(record.path)
                current = None if content is None else blob_sha(content)
            if current != expected:
                changed.append(record.path)
            sha, executable = (
                (record.pre, record.pre_exec)
                if kind == "undo"
                else (
                    record.post,
                    record.post_exec,
                )
            )
            data = None if sha is None else self.objects.read_blob(sha, entry.pack)
            changes.append(FileState(record.path, data, executable))
        if changed and not force:
            raise CheckpointConflict(kind, changed)
        return Transition(entry.id, tuple(changes), kind, tuple(changed)), entry, index

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
            missing_dirs=entry.pre_missing_dirs if undo else entry.post_missing_dirs,
            applied_after=index if undo else index + 1,
            pack=entry.pack,
        )

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
