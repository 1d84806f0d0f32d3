"""Folders created by plans are removed by undo where they were absent before, exactly."""

from __future__ import annotations

from pathlib import Path

from actions.checkpoints import CheckpointStore


def test_a_folder_created_by_two_overlapping_plans_is_removed_once_both_are_undone(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "open.txt").write_text("x\n")
    (workspace / "private.txt").write_text("y\n")
    store = CheckpointStore(workspace, store_dir=tmp_path / "store")
    first = store.begin_plan(description="first", session_id="a")
    second = store.begin_plan(description="second", session_id="b")  # another session
    second.write("pkg/b.py", b"b\n")  # creates pkg/
    first.write("pkg/sub/a.py", b"a\n")  # pkg/ exists now: only pkg/sub is new for it
    first.write("pkg/a.py", b"a\n")
    first.commit()
    second.commit()
    store.undo()  # second: pkg/ still holds the first plan's files
    assert (workspace / "pkg" / "a.py").exists()
    store.undo()  # first
    assert sorted(p.name for p in workspace.iterdir()) == ["open.txt", "private.txt"]
    store.redo()
    store.redo()
    assert (workspace / "pkg" / "b.py").read_text() == "b\n"
    assert (workspace / "pkg" / "sub" / "a.py").read_text() == "a\n"
