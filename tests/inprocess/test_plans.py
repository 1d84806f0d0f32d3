"""Plans in-process: several files through the editor applier, one checkpoint, rollbacks."""

from __future__ import annotations

import asyncio

import pytest

from server.editor import EditorApplier
from server.protocol import ErrorProgress, FileApplied, PlanProgress, PlanSummary
from tests.inprocess.conftest import Harness, Reply, ScriptedProvider, answer, doc

NEW = 'def greet():\n    return "hi"\n'
APP = "from src.new import greet\nprint(greet())\n"


def start(first_path: str = "/src/new.py", content: str = NEW) -> str:
    return doc(
        action="start_multi_file",
        plan={
            "description": "Add greet and use it",
            "files_to_modify": ["/src/new.py", "/src/app.py", "/old.txt"],
        },
        first_file={"action": "create_file", "file": {"path": first_path, "content": content}},
        message="creating the module",
    )


def step(action: str, path: str, content: str | None = None) -> str:
    file = {"path": path} if content is None else {"path": path, "content": content}
    return doc(action="continue_multi_file", next_file={"action": action, "file": file})


PLAN = [start(), step("update_file", "/src/app.py", APP), step("delete_file", "/old.txt")]


async def test_a_plan_of_several_files_is_applied_and_is_one_undo_step(
    harness: Harness,
) -> None:
    provider, outcome = await harness.turn([*PLAN, answer("Done.")])
    root = harness.root
    assert (root / "src" / "new.py").read_text() == NEW
    assert (root / "src" / "app.py").read_text() == APP
    assert not (root / "old.txt").exists()
    assert outcome.plan == PlanSummary(
        description="Add greet and use it",
        files=["src/new.py", "src/app.py", "old.txt"],
        applied=["src/new.py", "src/app.py", "old.txt"],
        skipped=[],
        unplanned=[],
    )
    assert [(e.path, e.action, e.planned) for e in harness.sink.of(FileApplied)] == [
        ("src/new.py", "create_file", True),
        ("src/app.py", "update_file", True),
        ("old.txt", "delete_file", True),
    ]
    assert "src/app.py" in provider.received[1][-1].content  # the model is told what remains
    [entry] = harness.folder.store.list()
    assert entry.id == outcome.checkpoint_id
    assert entry.description == "Add greet and use it"
    harness.folder.store.undo()
    assert (root / "src" / "app.py").read_text() == "print('v1')\n"
    assert (root / "old.txt").read_text() == "obsolete\n"
    assert not (root / "src" / "new.py").exists()


async def test_the_folder_context_is_reused_by_the_next_turn(harness: Harness) -> None:
    _, first = await harness.turn([start(), answer("Only the first file.")])
    _, second = await harness.turn([step_free_plan(), answer("Done.")])
    ids = [entry.id for entry in harness.folder.store.list()]
    assert ids == [second.checkpoint_id, first.checkpoint_id]  # one history, newest first


def step_free_plan() -> str:
    return doc(
        action="start_multi_file",
        plan={"description": "Notes", "files_to_modify": ["/notes.txt"]},
        first_file={"action": "create_file", "file": {"path": "/notes.txt", "content": "n\n"}},
    )


async def test_a_plan_ended_early_reports_what_was_skipped(harness: Harness) -> None:
    _, outcome = await harness.turn([start(), answer("Stopping here.")])
    assert outcome.plan is not None
    assert (outcome.plan.applied, outcome.plan.skipped) == (
        ["src/new.py"],
        ["src/app.py", "old.txt"],
    )
    started, ended = harness.sink.of(PlanProgress)
    assert started.applied is None
    assert ended.skipped == ["src/app.py", "old.txt"]
    assert outcome.checkpoint_id  # the applied part is still one undo step


async def test_open_buffers_get_the_new_content_through_the_editor(harness: Harness) -> None:
    app = harness.root / "src" / "app.py"
    harness.editor.open(app)
    await harness.turn([*PLAN, answer("Done.")])
    assert harness.editor.buffer(app) == APP
    assert app.read_text() == APP
    assert len(harness.editor.edits) == 1  # only the open file went through applyEdit


async def test_a_file_with_unsaved_changes_stops_the_plan_and_nothing_is_lost(
    harness: Harness,
) -> None:
    app = harness.root / "src" / "app.py"
    harness.editor.open(app, text="print('my unsaved work')\n")
    provider, outcome = await harness.turn([*PLAN, answer("app.py has unsaved changes.")])
    assert harness.editor.buffer(app) == "print('my unsaved work')\n"
    assert app.read_text() == "print('v1')\n"
    assert not (harness.root / "src" / "new.py").exists()  # the applied part is rolled back
    assert harness.editor.edits == []
    assert harness.folder.store.list() == []
    # the turn ends normally: the model is told which write was refused and answers
    assert outcome.plan is None
    assert outcome.checkpoint_id is None
    assert outcome.text == "app.py has unsaved changes."
    told = provider.received[2][-1].content
    assert "src/app.py: is open in the editor with unsaved changes" in told
    assert "the plan was rolled back (1 file(s) restored)" in told


async def test_an_edit_the_editor_refuses_rolls_the_plan_back(harness: Harness) -> None:
    app = harness.root / "src" / "app.py"
    harness.editor.open(app)
    harness.editor.refuse = "the user rejected the edit"
    provider, outcome = await harness.turn([*PLAN, answer("The editor said no.")])
    assert not (harness.root / "src" / "new.py").exists()
    assert app.read_text() == "print('v1')\n"
    assert harness.folder.store.list() == []
    # only what was written is restored: the refused app.py and old.txt were never written
    error = harness.sink.of(ErrorProgress)[0]
    assert error.rolled_back == ["src/new.py"]
    assert error.message == (
        "the editor refused to write src/app.py: the user rejected the edit; nothing was "
        "changed: the plan was rolled back (1 file(s) restored)"
    )
    assert error.message in provider.received[2][-1].content  # the model reads the same
    assert outcome.plan is None
    assert outcome.text == "The editor said no."


async def test_cancelling_mid_plan_restores_every_written_file(harness: Harness) -> None:
    held = Reply(step("update_file", "/src/app.py", APP), hold_after=1)
    provider = ScriptedProvider([start(), held])
    turn = asyncio.ensure_future(harness.run(provider))
    await asyncio.wait_for(provider.holding.wait(), timeout=10)  # mid-way through reply 2
    assert (harness.root / "src" / "new.py").exists()
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    assert not (harness.root / "src" / "new.py").exists()
    assert (harness.root / "src" / "app.py").read_text() == "print('v1')\n"
    assert harness.folder.store.list() == []
    [rolled] = [e for e in harness.sink.of(ErrorProgress) if e.rolled_back]
    assert "cancelled" in rolled.message
    assert rolled.rolled_back == ["src/new.py"]  # app.py and old.txt were not written yet
    assert "(1 file(s) restored)" in rolled.message
    assert harness.session.messages == []


async def test_undo_brings_the_open_buffers_back_with_the_disk(harness: Harness) -> None:
    app = harness.root / "src" / "app.py"
    harness.editor.open(app)
    await harness.turn([*PLAN, answer("Done.")])
    transition = await asyncio.to_thread(harness.folder.store.undo)
    await EditorApplier(harness.editor, harness.root, sync_any=True).sync(transition.changes)
    assert harness.editor.buffer(app) == "print('v1')\n"
    assert app.read_text() == "print('v1')\n"
