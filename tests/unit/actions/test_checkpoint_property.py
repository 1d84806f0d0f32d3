"""Property test: random plans, undo, redo, rollbacks and user edits against a model.

The workspace is a real git repository with a staged change, an untracked file and a stash.
After every step the workspace equals the model's expected files, and the user's `.git`
is byte-for-byte unchanged (HEAD, index, refs, stash, config); `git status` is the initial
one whenever the files are back to the initial state.
More examples: AGENT_LS_HYPOTHESIS_EXAMPLES=500 pytest <this file>
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from actions.checkpoints import (
    CheckpointConflict,
    CheckpointRefused,
    CheckpointStore,
    NothingToRedo,
    NothingToUndo,
)

EXAMPLES = int(os.environ.get("AGENT_LS_HYPOTHESIS_EXAMPLES", "12"))
KEEP = 4  # small, so pruning happens inside the sequences
PATHS = ["a.txt", "notes.md", "src/b.py", "src/new/c.py", "deep/x/y/z.txt", "deep/x/w.txt"]
GIT_ENV = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}

contents = st.one_of(st.none(), st.sampled_from([b"", b"one\n", b"two\n", b"\x00\xffbin"]))
writes = st.dictionaries(st.sampled_from(PATHS), contents, min_size=1, max_size=4)


def git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "user.email=u@example.com", "-c", "user.name=U", *args]
    return subprocess.run(
        command, cwd=repo, env=GIT_ENV, capture_output=True, text=True, check=True
    ).stdout


def files_of(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def dot_git(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def make_user_repo(ws: Path) -> None:
    (ws / "src").mkdir(parents=True)
    git(ws, "init", "-q")
    (ws / ".gitignore").write_text("*.log\n")
    (ws / "a.txt").write_text("a\n")
    (ws / "src" / "b.py").write_text("b\n")
    git(ws, "add", ".")
    git(ws, "commit", "-q", "-m", "init")
    (ws / "a.txt").write_text("stash me\n")
    git(ws, "stash", "-q")
    (ws / "a.txt").write_text("staged\n")
    git(ws, "add", "a.txt")
    (ws / "notes.md").write_text("untracked\n")


class CheckpointMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="ckpt-prop-"))
        self.ws = self.tmp / "ws"
        make_user_repo(self.ws)
        self.store = CheckpointStore(self.ws, store_dir=self.tmp / "store", keep=KEEP)
        self.initial = files_of(self.ws)
        self.initial_git = dot_git(self.ws / ".git")
        self.initial_status = self.status()
        self.disk = dict(self.initial)
        # each entry: (pre, post) images of the paths the plan changed
        self.history: list[tuple[dict[str, bytes | None], dict[str, bytes | None]]] = []
        self.applied = 0

    def status(self) -> str:
        return git(self.ws, "--no-optional-locks", "status", "--porcelain", "--untracked-files=all")

    def teardown(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _set(self, path: str, content: bytes | None) -> None:
        if content is None:
            self.disk.pop(path, None)
        else:
            self.disk[path] = content

    @rule(plan=writes)
    def apply_plan(self, plan: dict[str, bytes | None]) -> None:
        pre = {path: self.disk.get(path) for path in plan}
        recorder = self.store.begin_plan(description="p", session_id="s", paths=list(plan))
        for path, content in plan.items():
            recorder.write(path, content)
            self._set(path, content)
        info = recorder.commit()
        changed = {path for path in plan if pre[path] != plan[path]}
        assert (info is None) == (not changed)
        if info is not None:
            assert set(info.files) == changed
            entry = ({p: pre[p] for p in changed}, {p: plan[p] for p in changed})
            self.history = [*self.history[: self.applied], entry][-KEEP:]
            self.applied = len(self.history)

    @rule(plan=writes)
    def aborted_plan(self, plan: dict[str, bytes | None]) -> None:
        recorder = self.store.begin_plan(description="abort", session_id="s", paths=[])
        for path, content in plan.items():
            recorder.write(path, content)
        recorder.rollback()

    @rule(force=st.booleans())
    def undo(self, force: bool) -> None:
        self._move("undo", force)

    @rule(force=st.booleans())
    def redo(self, force: bool) -> None:
        self._move("redo", force)

    def _move(self, kind: str, force: bool) -> None:
        index = self.applied - 1 if kind == "undo" else self.applied
        if not 0 <= index < len(self.history):
            with pytest.raises(NothingToUndo if kind == "undo" else NothingToRedo):
                (self.store.undo if kind == "undo" else self.store.redo)(force=force)
            return
        pre, post = self.history[index]
        source, target = (post, pre) if kind == "undo" else (pre, post)
        changed = {p for p in target if self.disk.get(p) != source[p]}
        if changed and not force:
            with pytest.raises(CheckpointConflict) as caught:
                (self.store.undo if kind == "undo" else self.store.redo)(force=force)
            assert set(caught.value.paths) == changed
            return
        (self.store.undo if kind == "undo" else self.store.redo)(force=force)
        for path, content in target.items():
            self._set(path, content)
        self.applied += -1 if kind == "undo" else 1

    @rule(path=st.sampled_from(PATHS), content=contents)
    def user_edit(self, path: str, content: bytes | None) -> None:
        target = self.ws / path
        if content is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        self._set(path, content)

    @rule()
    def ignored_path_is_refused(self) -> None:
        with pytest.raises(CheckpointRefused):
            self.store.begin_plan(description="p", session_id="s", paths=["src/debug.log"])

    @invariant()
    def workspace_matches_model(self) -> None:
        assert files_of(self.ws) == self.disk
        states = [info.state for info in self.store.list()]
        assert (
            states == ["undone"] * (len(self.history) - self.applied) + ["applied"] * self.applied
        )

    @invariant()
    def users_git_is_untouched(self) -> None:
        assert dot_git(self.ws / ".git") == self.initial_git
        if self.disk == self.initial:
            assert self.status() == self.initial_status


CheckpointMachine.TestCase.settings = settings(
    max_examples=EXAMPLES,
    stateful_step_count=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_checkpoint_sequences = CheckpointMachine.TestCase
