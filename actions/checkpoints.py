"""Git-backed checkpoints: exact undo / redo of applied plans, never touching the user's git.

Each workspace has a shadow store outside it (`$XDG_CACHE_HOME/agent-ls/checkpoints/<hash>`,
or `$AGENT_LS_CHECKPOINT_DIR/<hash>`, or an explicit `store_dir`): a bare git directory
holding, per applied plan, one pack with the pre- and post-image blobs of just the paths it
touched, a small tree `pre/… post/…` and a commit, named by `refs/checkpoints/<id>`.
Objects are written in-process (`checkpoint_objects`, `checkpoint_pack`), so a checkpoint
costs O(files touched) and no git process; the user's `.git`, HEAD, index, refs and stash
are never written (their ignore rules are read with `git check-ignore`).

Usage (the plan executor / LSP handlers):

    store = CheckpointStore(root)                  # opening recovers an interrupted operation
    plan = store.begin_plan(description=..., session_id=..., paths=[...])
    plan.write("src/a.py", b"...")                 # or: plan.touch(p) then write p yourself
    plan.commit()                                  # or plan.rollback() on abort
    store.undo(); store.redo(); store.list()

Every mutation runs under an flock of the store; undo / redo / rollback go through a
write-ahead journal so a crash at any point leaves the workspace fully before or after.
"""

from __future__ import annotations

import builtins
import hashlib
import os
import secrets
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from actions.checkpoint_journal import (
    ApplyJournal,
    Entry,
    PreImage,
    StoreState,
    Target,
    load_model,
    locked,
    read_workspace_file,
    save_model,
)
from actions.checkpoint_objects import ObjectStore, blob_sha
from actions.checkpoint_pack import read_entry
from actions.checkpoint_paths import PathPolicy, clean_git_env, run_git
from actions.checkpoint_recorder import PlanRecorder
from actions.checkpoint_recovery import apply_journal, drop_orphans, recover
from actions.checkpoint_types import (
    CheckpointConflict,
    CheckpointError,
    CheckpointInfo,
    CheckpointRefused,
    FileState,
    NothingToRedo,
    NothingToUndo,
    PlanClosed,
    RecoveryReport,
    StaleTransition,
    Transition,
    TransitionKind,
)

__all__ = [
    "CheckpointConflict",
    "CheckpointError",
    "CheckpointInfo",
    "CheckpointRefused",
    "CheckpointStore",
    "ContentReader",
    "FileState",
    "NothingToRedo",
    "NothingToUndo",
    "PlanClosed",
    "PlanRecorder",
    "RecoveryReport",
    "StaleTransition",
    "Transition",
    "default_store_dir",
]

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


class CheckpointStore:
    """The undo history of one workspace. Opening it recovers an interrupted operation."""

    def __init__(
        self,
        workspace: Path,
        *,
        store_dir: Path | None = None,
        keep: int = 50,
        max_file_bytes: int = 5 * 2**20,
    ) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        if not self.workspace.is_dir():
            raise CheckpointError(f"workspace {workspace} is not a folder")
        self.store_dir = Path(os.path.realpath(store_dir or default_store_dir(self.workspace)))
        self.keep = max(1, keep)
        self.objects = ObjectStore(self.store_dir / "git")
        self.policy = PathPolicy(self.workspace, self.store_dir, max_file_bytes)
        self.plans_dir = self.store_dir / "plans"
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

    # -- internals shared with PlanRecorder ---------------------------------------------------
    def lock(self, *, exclusive: bool = True) -> AbstractContextManager[None]:
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
