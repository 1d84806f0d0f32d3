"""Checkpoint store: exact undo / redo of plans, refusals, listing, pruning, the user's git.

Real files in temp folders and real git repositories; nothing mocked.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from actions.checkpoints import (
    CheckpointConflict,
    CheckpointRefused,
    CheckpointStore,
    NothingToRedo,
    NothingToUndo,
    PlanClosed,
    StaleTransition,
    default_store_dir,
)

GIT_ID = ["-c", "user.email=u@example.com", "-c", "user.name=User", "-c", "commit.gpgsign=false"]


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    done = subprocess.run(
        ["git", *GIT_ID, *args], cwd=repo, capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def user_git_state(repo: Path) -> tuple[str, ...]:
    return (
        git(repo, "status", "--porcelain", "--untracked-files=all"),
        git(repo, "rev-parse", "HEAD"),
        git(repo, "ls-files", "-s"),
        git(repo, "stash", "list"),
        git(repo, "for-each-ref"),
        (repo / ".git" / "config").read_text(),
    )


def files_of(root: Path) -> dict[str, bytes]:
    """Every file under root except the user's .git."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A user repository with a commit, a staged change, an untracked file and a stash."""
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q", "-b", "main")
    (ws / ".gitignore").write_text("*.log\nbuild/\n")
    (ws / "a.txt").write_text("a1\n")
    (ws / "src").mkdir()
    (ws / "src" / "b.py").write_text("print('b')\n")
    git(ws, "add", ".")
    git(ws, "commit", "-q", "-m", "init")
    (ws / "a.txt").write_text("stashed\n")
    git(ws, "stash", "-q")
    (ws / "src" / "b.py").write_text("print('staged')\n")
    git(ws, "add", "src/b.py")
    (ws / "notes.md").write_text("untracked\n")
    return ws


@pytest.fixture
def store(repo: Path, tmp_path: Path) -> CheckpointStore:
    return CheckpointStore(repo, store_dir=tmp_path / "store")


def apply_plan(store: CheckpointStore, writes: dict[str, bytes | None], desc: str = "plan") -> str:
    plan = store.begin_plan(description=desc, session_id="s1", paths=list(writes))
    for path, content in writes.items():
        plan.write(path, content)
    info = plan.commit()
    assert info is not None
    return info.id


def test_undo_restores_updates_creations_and_deletions_exactly(
    store: CheckpointStore, repo: Path
) -> None:
    before_files, before_git = files_of(repo), user_git_state(repo)
    apply_plan(store, {"a.txt": b"a2\n", "src/b.py": None, "new/deep/c.js": b"c\n", "d.txt": b""})
    after_files = files_of(repo)
    assert after_files["new/deep/c.js"] == b"c\n"
    assert "src/b.py" not in after_files

    transition = store.undo()

    assert files_of(repo) == before_files
    assert not (repo / "new").exists()  # folders the plan created are gone too
    assert {c.path: c.content for c in transition.changes}["new/deep/c.js"] is None
    assert user_git_state(repo) == before_git
    store.redo()
    assert files_of(repo) == after_files
    store.undo()
    assert files_of(repo) == before_files
    assert user_git_state(repo) == before_git


def test_undo_and_redo_form_an_editor_like_stack(store: CheckpointStore, repo: Path) -> None:
    states = [files_of(repo)]
    for n in range(3):
        apply_plan(store, {"a.txt": f"v{n}\n".encode()}, desc=f"p{n}")
        states.append(files_of(repo))
    store.undo()
    store.undo()
    assert files_of(repo) == states[1]
    store.redo()
    assert files_of(repo) == states[2]
    apply_plan(store, {"other.txt": b"x"}, desc="new plan")  # clears the redo stack
    with pytest.raises(NothingToRedo):
        store.redo()
    assert [i.description for i in store.list()] == ["new plan", "p1", "p0"]
    for _ in range(3):
        store.undo()
    assert files_of(repo) == states[0]
    with pytest.raises(NothingToUndo):
        store.undo()
    assert [i.state for i in store.list()] == ["undone"] * 3


def test_listing_shows_id_time_description_session_and_files(store: CheckpointStore) -> None:
    first = apply_plan(store, {"a.txt": b"1", "z.txt": b"z"}, desc="Refactor header")
    second = apply_plan(store, {"a.txt": b"2"}, desc="Fix typo")
    store.undo()
    listed = store.list()
    assert [i.id for i in listed] == [second, first]
    assert listed[0].state == "undone"
    assert listed[1].state == "applied"
    assert listed[1].files == ("a.txt", "z.txt")
    assert listed[1].session_id == "s1"
    assert listed[1].iso_time.endswith("+00:00")
    assert listed[0].time >= listed[1].time


def test_undo_refuses_when_the_user_changed_a_file_since(
    store: CheckpointStore, repo: Path
) -> None:
    apply_plan(store, {"a.txt": b"plan\n", "c.txt": b"c\n"})
    (repo / "c.txt").write_text("user edit\n")
    with pytest.raises(CheckpointConflict) as caught:
        store.undo()
    assert caught.value.paths == ["c.txt"]
    assert "c.txt" in str(caught.value)
    assert "force" in str(caught.value)
    assert (repo / "c.txt").read_text() == "user edit\n"  # nothing written
    assert (repo / "a.txt").read_text() == "plan\n"
    transition = store.undo(force=True)
    assert transition.overridden == ("c.txt",)
    assert not (repo / "c.txt").exists()


def test_redo_refuses_when_the_user_changed_a_file_since_undo(
    store: CheckpointStore, repo: Path
) -> None:
    apply_plan(store, {"new.txt": b"n"})
    store.undo()
    (repo / "new.txt").write_text("mine")
    with pytest.raises(CheckpointConflict) as caught:
        store.redo()
    assert caught.value.paths == ["new.txt"]
    store.redo(force=True)
    assert (repo / "new.txt").read_bytes() == b"n"


def test_conflict_check_can_compare_against_editor_buffers(
    store: CheckpointStore, repo: Path
) -> None:
    apply_plan(store, {"a.txt": b"plan\n"})
    buffers = {"a.txt": b"plan\nunsaved typing\n"}
    with pytest.raises(CheckpointConflict, match=r"a.txt \(in the editor\)"):
        store.plan_undo(buffers=buffers.get)
    planned = store.plan_undo()
    assert (repo / "a.txt").read_bytes() == b"plan\n"  # planning writes nothing
    assert planned.changes[0].content == b"a1\n"
    store.apply(planned)
    assert (repo / "a.txt").read_bytes() == b"a1\n"
    with pytest.raises(StaleTransition):
        store.apply(planned)  # the history moved: the same undo cannot run twice


def test_disk_and_buffers_are_both_compared(store: CheckpointStore, repo: Path) -> None:
    apply_plan(store, {"a.txt": b"plan\n", "c.txt": b"c\n"})
    (repo / "a.txt").write_text("another tool wrote this\n")
    in_editor = {"a.txt": b"plan\n", "c.txt": b"c\n"}  # a buffer not reloaded from disk
    with pytest.raises(CheckpointConflict) as caught:
        store.undo(buffers=in_editor.get)
    assert caught.value.paths == ["a.txt"]
    assert caught.value.places == {"a.txt": "on disk"}
    in_editor["c.txt"] = b"c\ntyped\n"
    with pytest.raises(CheckpointConflict, match=r"a.txt \(on disk\), c.txt \(in the editor\)"):
        store.undo(buffers=in_editor.get)
    assert (repo / "a.txt").read_text() == "another tool wrote this\n"
    assert store.undo(force=True, buffers=in_editor.get).overridden == ("a.txt", "c.txt")
    assert (repo / "a.txt").read_bytes() == b"a1\n"


def test_plan_that_changes_nothing_leaves_no_undo_entry(store: CheckpointStore) -> None:
    plan = store.begin_plan(description="noop", session_id="s", paths=["a.txt"])
    plan.write("a.txt", Path(store.workspace, "a.txt").read_bytes())
    assert plan.commit() is None
    assert store.list() == []
    with pytest.raises(PlanClosed):
        plan.touch("x")


def test_rollback_restores_pre_images_and_records_nothing(
    store: CheckpointStore, repo: Path
) -> None:
    before = files_of(repo)
    plan = store.begin_plan(description="aborted", session_id="s", paths=["a.txt"])
    plan.write("a.txt", b"half")
    plan.write("gen/out.txt", b"new")
    plan.write("notes.md", None)
    transition = plan.rollback()
    assert files_of(repo) == before
    assert not (repo / "gen").exists()
    assert transition.kind == "rollback"
    assert store.list() == []
    assert list(store.plans_dir.iterdir()) == []


def test_with_block_rolls_back_on_error(store: CheckpointStore, repo: Path) -> None:
    def failing_plan() -> None:
        with store.begin_plan(description="d", session_id="s") as plan:
            plan.write("a.txt", b"broken")
            raise RuntimeError("model failed")

    with pytest.raises(RuntimeError):
        failing_plan()
    assert (repo / "a.txt").read_text() == "a1\n"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("debug.log", "ignored"),
        ("build/x.js", "ignored"),
        ("../outside.txt", "normalized"),
        ("/etc/passwd", "workspace-relative"),
        (".git/config", ".git"),
        ("sub/.git/HEAD", ".git"),
    ],
)
def test_paths_we_cannot_undo_are_refused_before_any_write(
    store: CheckpointStore, repo: Path, path: str, reason: str
) -> None:
    with pytest.raises(CheckpointRefused) as caught:
        store.begin_plan(description="d", session_id="s", paths=["a.txt", path])
    assert reason in caught.value.reason
    assert caught.value.path == path
    assert list(store.plans_dir.iterdir()) == []


def test_huge_files_and_symlinks_are_refused(repo: Path, tmp_path: Path) -> None:
    store = CheckpointStore(repo, store_dir=tmp_path / "st", max_file_bytes=1000)
    (repo / "big.bin").write_bytes(b"x" * 1001)
    (repo / "link.txt").symlink_to(repo / "a.txt")
    with pytest.raises(CheckpointRefused, match="size cap"):
        store.begin_plan(description="d", session_id="s", paths=["big.bin"])
    with pytest.raises(CheckpointRefused, match="symbolic link"):
        store.begin_plan(description="d", session_id="s", paths=["link.txt"])
    plan = store.begin_plan(description="d", session_id="s", paths=["a.txt"])
    with pytest.raises(CheckpointRefused, match="size cap"):
        plan.write("a.txt", b"y" * 2000)
    assert (repo / "a.txt").read_text() == "a1\n"
    plan.rollback()


def test_works_in_a_folder_that_is_not_a_git_repository(tmp_path: Path) -> None:
    ws = tmp_path / "plain"
    ws.mkdir()
    (ws / "x.log").write_text("not ignored here")
    store = CheckpointStore(ws, store_dir=tmp_path / "st")
    apply_plan(store, {"x.log": b"changed", "y/z.txt": b"z"})
    store.undo()
    assert files_of(ws) == {"x.log": b"not ignored here"}
    assert not (ws / ".git").exists()


def test_nested_repositories_use_their_own_ignore_rules(store: CheckpointStore, repo: Path) -> None:
    nested = repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    (nested / ".gitignore").write_text("*.tmp\n")
    (nested / "keep.log").write_text("outer rule does not apply inside")
    outer, inner = user_git_state(repo), git(nested, "status", "--porcelain")
    with pytest.raises(CheckpointRefused, match="ignored"):
        store.begin_plan(description="d", session_id="s", paths=["vendor/lib/x.tmp"])
    apply_plan(store, {"vendor/lib/keep.log": b"edited", "vendor/lib/new.c": b"int x;"})
    store.undo()
    assert (nested / "keep.log").read_text() == "outer rule does not apply inside"
    assert not (nested / "new.c").exists()
    assert user_git_state(repo) == outer
    assert git(nested, "status", "--porcelain") == inner


def test_executable_bit_is_restored(store: CheckpointStore, repo: Path) -> None:
    script = repo / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    apply_plan(store, {"run.sh": None})
    store.undo()
    assert os.access(script, os.X_OK)
    store.redo()
    assert not script.exists()


def test_store_is_a_valid_git_repository_outside_the_workspace(
    store: CheckpointStore, repo: Path
) -> None:
    checkpoint = apply_plan(store, {"a.txt": b"a2\n", "new/c.txt": b"c"})
    assert repo not in store.store_dir.parents
    store.git(["fsck", "--strict", "--no-dangling"])
    listed = store.git(["ls-tree", "-r", "--name-only", f"refs/checkpoints/{checkpoint}"])
    assert listed.split() == ["post/a.txt", "post/new/c.txt", "pre/a.txt"]
    assert store.git(["cat-file", "-p", f"refs/checkpoints/{checkpoint}:pre/a.txt"]) == "a1\n"


def test_pruning_keeps_n_plans_and_drops_their_objects(repo: Path, tmp_path: Path) -> None:
    store = CheckpointStore(repo, store_dir=tmp_path / "st", keep=3)
    for n in range(6):
        apply_plan(store, {f"f{n}.txt": f"unique content {n}\n".encode()})
    assert len(store.list()) == 3
    for _ in range(3):
        store.undo()
    with pytest.raises(NothingToUndo):
        store.undo()
    assert (repo / "f2.txt").exists()  # beyond the kept history
    assert not (repo / "f3.txt").exists()
    stats = dict(line.split(": ") for line in store.git(["count-objects", "-v"]).splitlines())
    assert stats["count"] == "0"  # no loose leftovers
    assert stats["packs"] == "3"  # one pack per kept plan
    assert len(store.git(["for-each-ref"]).splitlines()) == 3
    store.git(["fsck", "--strict", "--no-dangling"])
    assert store.git(["fsck", "--unreachable", "--no-reflogs"]) == ""

    def stored(text: str) -> bool:
        sha = store.git(["hash-object", "--stdin"], text.encode()).strip()
        done = store.git(["cat-file", "--batch-check"], sha.encode() + b"\n")
        return "missing" not in done

    assert stored("unique content 5\n")
    assert not stored("unique content 0\n")  # the dropped plans' objects are gone


def test_new_plan_after_undo_drops_the_redo_objects(store: CheckpointStore, repo: Path) -> None:
    apply_plan(store, {"a.txt": b"first unique body\n"})
    store.undo()
    apply_plan(store, {"a.txt": b"second\n"})
    assert store.git(["fsck", "--unreachable", "--no-reflogs"]) == ""
    assert len(store.git(["for-each-ref"]).splitlines()) == 1
    assert "packs: 1" in store.git(["count-objects", "-v"]).splitlines()


def test_store_location_is_keyed_by_workspace_and_overridable(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENT_LS_CHECKPOINT_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    default = default_store_dir(repo)
    assert default.parent == tmp_path / "cache" / "agent-ls" / "checkpoints"
    assert default_store_dir(tmp_path) != default
    monkeypatch.setenv("AGENT_LS_CHECKPOINT_DIR", str(tmp_path / "env"))
    store = CheckpointStore(repo)
    assert store.store_dir.parent == tmp_path / "env"
    apply_plan(store, {"a.txt": b"x"})
    assert [i.description for i in CheckpointStore(repo).list()] == ["plan"]


def test_users_git_environment_is_not_inherited(
    store: CheckpointStore, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoy = tmp_path / "decoy.git"
    git(tmp_path, "init", "-q", "--bare", str(decoy))
    monkeypatch.setenv("GIT_DIR", str(decoy))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "decoy-index"))
    before = user_git_state(repo)
    apply_plan(store, {"a.txt": b"x", "build.txt": b"y"})
    with pytest.raises(CheckpointRefused):  # ignore rules still come from the workspace repo
        store.begin_plan(description="d", session_id="s", paths=["build/out.js"])
    store.undo()
    store.prune()
    assert user_git_state(repo) == before
    assert not (tmp_path / "decoy-index").exists()
    assert sorted(p.name for p in (decoy / "objects").iterdir()) == ["info", "pack"]


def test_the_same_plan_again_after_undo_can_be_undone(store: CheckpointStore, repo: Path) -> None:
    before = files_of(repo)
    apply_plan(store, {"a.txt": b"", "notes.md": None})
    store.undo()
    apply_plan(store, {"a.txt": b"", "notes.md": None})  # same objects, same second
    store.undo()
    assert files_of(repo) == before
