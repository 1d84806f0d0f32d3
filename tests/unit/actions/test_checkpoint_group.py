"""One undo history over the checkpoint stores of several folders (actions/checkpoints/group.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from actions.checkpoints import CheckpointStore
from actions.checkpoints.group import StoreGroup
from actions.checkpoints.types import CheckpointConflict, CheckpointRefused, NothingToUndo


@pytest.fixture
def group(tmp_path: Path) -> StoreGroup:
    stores = {}
    for name in ("a", "b"):
        root = tmp_path / name
        root.mkdir()
        (root / "f.txt").write_text(f"{name}0\n")
        stores[name] = CheckpointStore(root, store_dir=tmp_path / f"store-{name}")
    return StoreGroup(stores)


def write(group: StoreGroup, key: str, text: str) -> None:
    name, _, rest = key.partition("/")
    (group.stores[name].workspace / rest).write_text(text)


def read(group: StoreGroup, key: str) -> str:
    name, _, rest = key.partition("/")
    return (group.stores[name].workspace / rest).read_text()


def plan(group: StoreGroup, edits: dict[str, str], description: str = "p") -> str:
    recorder = group.begin_plan(description=description, session_id="s", paths=list(edits))
    for key, text in edits.items():
        recorder.touch(key)
        write(group, key, text)
    info = recorder.commit()
    assert info is not None
    return info.id


def test_a_plan_over_two_folders_is_one_entry_and_one_undo(group: StoreGroup) -> None:
    plan_id = plan(group, {"a/f.txt": "a1\n", "b/f.txt": "b1\n"}, "both")
    listed = group.list()
    assert [(info.id, sorted(info.files)) for info in listed] == [(plan_id, ["a/f.txt", "b/f.txt"])]

    undone = group.undo()
    assert undone.checkpoint_id == plan_id
    assert sorted(change.path for change in undone.changes) == ["a/f.txt", "b/f.txt"]
    assert (read(group, "a/f.txt"), read(group, "b/f.txt")) == ("a0\n", "b0\n")
    group.redo()
    assert (read(group, "a/f.txt"), read(group, "b/f.txt")) == ("a1\n", "b1\n")


def test_undo_takes_plans_newest_first_across_folders(group: StoreGroup) -> None:
    plan(group, {"a/f.txt": "a1\n", "b/f.txt": "b1\n"})
    plan(group, {"a/f.txt": "a2\n"})
    group.undo()
    assert (read(group, "a/f.txt"), read(group, "b/f.txt")) == ("a1\n", "b1\n")
    group.undo()
    assert (read(group, "a/f.txt"), read(group, "b/f.txt")) == ("a0\n", "b0\n")
    with pytest.raises(NothingToUndo):
        group.undo()
    group.redo()  # the oldest undone first
    assert (read(group, "a/f.txt"), read(group, "b/f.txt")) == ("a1\n", "b1\n")
    group.redo()
    assert read(group, "a/f.txt") == "a2\n"


def test_a_conflict_in_one_folder_moves_no_folder(group: StoreGroup) -> None:
    plan(group, {"a/f.txt": "a1\n", "b/f.txt": "b1\n"})
    write(group, "b/f.txt", "user\n")
    with pytest.raises(CheckpointConflict) as conflict:
        group.undo()
    assert conflict.value.paths == ["b/f.txt"]
    assert read(group, "a/f.txt") == "a1\n"
    overridden = group.undo(force=True)
    assert overridden.overridden == ("b/f.txt",)
    assert (read(group, "a/f.txt"), read(group, "b/f.txt")) == ("a0\n", "b0\n")


def test_a_rolled_back_plan_restores_every_folder(group: StoreGroup) -> None:
    recorder = group.begin_plan(description="p", session_id="s", paths=["a/f.txt"])
    recorder.touch("a/f.txt")
    write(group, "a/f.txt", "a1\n")
    recorder.touch("b/new.txt")  # a folder the plan did not announce
    write(group, "b/new.txt", "n\n")
    transition = recorder.rollback()
    assert sorted(change.path for change in transition.changes) == ["a/f.txt", "b/new.txt"]
    assert read(group, "a/f.txt") == "a0\n"
    assert not (group.stores["b"].workspace / "new.txt").exists()
    assert group.list() == []


def test_the_size_cap_applies_per_folder(tmp_path: Path) -> None:
    stores = {}
    for name, cap in (("a", 10), ("b", 1000)):
        (tmp_path / name).mkdir()
        stores[name] = CheckpointStore(
            tmp_path / name, store_dir=tmp_path / f"s-{name}", max_file_bytes=cap
        )
    recorder = StoreGroup(stores).begin_plan(description="p", session_id="s")
    recorder.check_content("b/big.txt", 500)
    with pytest.raises(CheckpointRefused):
        recorder.check_content("a/big.txt", 500)
    recorder.discard()
