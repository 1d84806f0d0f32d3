"""Crash safety and concurrency of the checkpoint store, with real child processes.

A child runs one operation with AGENT_LS_CHECKPOINT_KILL_AT=<point>, which SIGKILLs it at
that point; the test then opens the store (recovery) and checks the workspace is fully
before or fully after, consistent with the listed history, and the user's git untouched.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from actions.checkpoints import CheckpointStore

GIT_ID = ["-c", "user.email=u@example.com", "-c", "user.name=User"]

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from actions.checkpoints import CheckpointStore

    ws, store_dir, scenario = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    store = CheckpointStore(ws, store_dir=store_dir)
    writes = {"a.txt": b"plan a\\n", "src/b.py": None, "new/deep/c.js": b"c\\n"}
    if scenario in ("commit", "rollback", "midplan"):
        plan = store.begin_plan(description="p", session_id="s", paths=list(writes))
        for path, content in writes.items():
            plan.write(path, content)
            if scenario == "midplan":
                os.kill(os.getpid(), signal.SIGKILL)
        if scenario == "commit":
            plan.commit()
        else:
            plan.rollback()
    elif scenario == "undo":
        store.undo()
    elif scenario == "redo":
        store.redo()
    """
)


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(
        ["git", *GIT_ID, *args], cwd=repo, capture_output=True, text=True, env=env, check=True
    ).stdout


def user_git_state(repo: Path) -> tuple[str, ...]:
    """HEAD, index, stash and refs (the working tree is compared through files_of)."""
    return (
        git(repo, "for-each-ref"),
        git(repo, "rev-parse", "HEAD"),
        git(repo, "ls-files", "-s"),
        git(repo, "stash", "list"),
    )


def files_of(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def run_child(ws: Path, store_dir: Path, scenario: str, kill_at: str | None) -> int:
    env = dict(os.environ)
    env.pop("AGENT_LS_CHECKPOINT_KILL_AT", None)
    if kill_at:
        env["AGENT_LS_CHECKPOINT_KILL_AT"] = kill_at
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(ws), str(store_dir), scenario],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, -signal.SIGKILL), done.stderr
    return done.returncode


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    git(ws, "init", "-q")
    (ws / "a.txt").write_text("a\n")
    (ws / "src" / "b.py").write_text("b\n")
    git(ws, "add", ".")
    git(ws, "commit", "-q", "-m", "init")
    (ws / "a.txt").write_text("a staged\n")
    git(ws, "add", "a.txt")
    (ws / "untracked.txt").write_text("u\n")
    return ws


def assert_store_clean(store: CheckpointStore) -> None:
    assert not (store.store_dir / "journal.json").exists()
    assert list(store.plans_dir.iterdir()) == []
    store.git(["fsck", "--strict", "--no-dangling"])


COMMIT_POINTS = [
    "touch:blobs-written",
    "touch:journal-written",
    "commit:objects-written",
    "commit:ref-written",
    "commit:state-written",
]
APPLY_POINTS = ["apply:journal-written", "apply:file-written", "apply:files-written"]


@pytest.mark.parametrize("point", [*COMMIT_POINTS, "midplan"])
def test_crash_while_recording_a_plan(repo: Path, tmp_path: Path, point: str) -> None:
    store_dir = tmp_path / "store"
    before, git_before = files_of(repo), user_git_state(repo)
    scenario = "midplan" if point == "midplan" else "commit"
    code = run_child(repo, store_dir, scenario, None if point == "midplan" else point)
    assert code == -signal.SIGKILL
    store = CheckpointStore(repo, store_dir=store_dir)
    listed = store.list()
    if point == "commit:state-written":  # the entry was recorded: the plan stands
        assert len(listed) == 1
        after = files_of(repo)
        store.undo()
        assert files_of(repo) == before
        store.redo()
        assert files_of(repo) == after
    else:  # an unfinished plan is rolled back: nothing half-done stays
        assert listed == []
        assert files_of(repo) == before
        assert not (repo / "new").exists()
        # before its journal existed the plan had written nothing: nothing to roll back
        assert bool(store.last_recovery.rolled_back_plans) == (point != "touch:blobs-written")
    assert user_git_state(repo) == git_before
    assert_store_clean(store)


@pytest.mark.parametrize(
    ("operation", "point"),
    [(op, point) for op in ("undo", "redo") for point in [*APPLY_POINTS, "apply:state-written"]]
    + [("rollback", point) for point in APPLY_POINTS],
)
def test_crash_during_undo_redo_or_rollback(
    repo: Path, tmp_path: Path, operation: str, point: str
) -> None:
    store_dir = tmp_path / "store"
    pre, git_before = files_of(repo), user_git_state(repo)
    post = pre
    if operation != "rollback":
        assert run_child(repo, store_dir, "commit", None) == 0
        post = files_of(repo)
        if operation == "redo":
            CheckpointStore(repo, store_dir=store_dir).undo()
    assert run_child(repo, store_dir, operation, point) == -signal.SIGKILL
    store = CheckpointStore(repo, store_dir=store_dir)
    target = post if operation == "redo" else pre
    assert files_of(repo) == target  # rolled forward: fully after
    expected_state = ["applied"] if operation == "redo" else ["undone"]
    assert [i.state for i in store.list()] == ([] if operation == "rollback" else expected_state)
    assert user_git_state(repo) == git_before
    assert_store_clean(store)


def test_two_processes_on_one_store_never_corrupt_it(repo: Path, tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    before = files_of(repo)
    worker = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from actions.checkpoints import CheckpointStore
        ws, store_dir, name, phase = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
        store = CheckpointStore(ws, store_dir=store_dir, keep=100)
        for n in range(15):
            if phase == "plans":
                with store.begin_plan(description=f"{name}{n}", session_id=name) as plan:
                    plan.write(f"{name}/{n}.txt", f"{name} {n}".encode())
            else:
                store.undo()
        """
    )
    for phase in ("plans", "undo"):
        children = [
            subprocess.Popen(
                [sys.executable, "-c", worker, str(repo), str(store_dir), name, phase],
                stderr=subprocess.PIPE,
            )
            for name in ("x", "y")
        ]
        for child in children:
            _out, err = child.communicate(timeout=120)
            assert child.returncode == 0, err.decode()
        store = CheckpointStore(repo, store_dir=store_dir, keep=100)
        listed = store.list()
        assert len({i.id for i in listed}) == len(listed) == 30
        applied = [i for i in listed if i.state == "applied"]
        expected = dict(before)
        for info in applied:
            expected[info.files[0]] = (
                info.description.replace("x", "x ").replace("y", "y ").encode()
            )
        assert files_of(repo) == expected
        assert_store_clean(store)
    assert files_of(repo) == before


def test_recovery_leaves_files_changed_after_the_crash_alone(repo: Path, tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    assert run_child(repo, store_dir, "commit", None) == 0
    assert run_child(repo, store_dir, "undo", "apply:journal-written") == -signal.SIGKILL
    (repo / "a.txt").write_text("typed after the crash\n")
    store = CheckpointStore(repo, store_dir=store_dir)
    assert store.last_recovery.skipped_paths == ("a.txt",)
    assert (repo / "a.txt").read_text() == "typed after the crash\n"
    assert (repo / "src" / "b.py").read_text() == "b\n"  # the rest was rolled forward
    assert not (repo / "new").exists()
    assert_store_clean(store)


def test_crash_after_recording_leaves_no_pruned_pack_behind(repo: Path, tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    keep_one = CHILD.replace("store_dir=store_dir)", "store_dir=store_dir, keep=1)")
    env = {**os.environ, "AGENT_LS_CHECKPOINT_KILL_AT": "commit:state-written"}
    first = CheckpointStore(repo, store_dir=store_dir, keep=1)
    with first.begin_plan(description="first", session_id="s") as plan:
        plan.write("first.txt", b"1")
    done = subprocess.run(
        [sys.executable, "-c", keep_one, str(repo), str(store_dir), "commit"],
        env=env,
        capture_output=True,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL
    store = CheckpointStore(repo, store_dir=store_dir, keep=1)
    assert [i.description for i in store.list()] == ["p"]
    assert len(list((store_dir / "git" / "objects" / "pack").glob("*.pack"))) == 1
    assert store.git(["for-each-ref", "--format=%(refname)"]).split() == [
        f"refs/checkpoints/{store.list()[0].id}"
    ]
    assert_store_clean(store)
