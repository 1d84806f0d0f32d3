"""`session/load` replays the conversation the user saw, driven by the official ACP SDK client:
their message, the tool calls with their final status and output, the plan with its final
statuses, each written file with its diff, the answer — update by update, in a second agent
process — and never an action document or agent-ls' instructions to the model. A session
stored by an older agent-ls (a transcript only) is shown the same way, best effort.

Not through acpx: its prompts load the session with the replay suppressed (acpx 0.x,
`loadSessionWithOptions(..., {suppressReplayUpdates: true})`), so no acpx command prints it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp import text_block

from server.history import SessionStore
from tests.e2e.conversations import (
    FULL_CONVERSATION,
    NEW_APP,
    NEW_MODULE,
    SEED_FILES,
    doc,
    seed_project,
)
from tests.e2e.test_acp import RecordingClient, acp_agent
from tests.fakellm import FakeLLM

PROMPT = "Add a greeting module"
PLAN = ["src/new.py", "src/app.py", "old.txt"]
INTERNAL = ('"action"', "continue_multi_file", "Reply with", "Applied:", "Result of ", "```json")


def view(update: Any) -> tuple[Any, ...]:
    """One session/update as the user sees it (tool call ids left out)."""
    kind = update.session_update
    if kind in ("user_message_chunk", "agent_message_chunk"):
        return (kind, update.content.text)
    if kind == "tool_call":
        return (kind, update.title, update.kind, update.status)
    if kind == "tool_call_update":
        return (kind, update.status)
    if kind == "plan":
        return (kind, tuple((e.content, e.status) for e in update.entries))
    return (kind,)


def texts(update: Any) -> list[str]:
    """Every text the update shows: message chunks, tool output, diffs."""
    content = getattr(update, "content", None)
    if content is None:
        return []
    if not isinstance(content, list):
        return [content.text]
    shown = []
    for item in content:
        if item.type == "diff":
            shown += [item.old_text or "", item.new_text]
        else:
            shown.append(item.content.text)
    return shown


def assert_nothing_internal(updates: list[Any]) -> None:
    for update in updates:
        for text in texts(update):
            assert not any(mark in text for mark in INTERNAL), (update.session_update, text)


async def turn_then_load(root: Path, script: dict[str, Any], strip: bool = False) -> list[Any]:
    """A turn in one agent process, then session/load in a second one: the replayed updates
    (`strip`: the stored file loses its conversation first, as an older agent-ls wrote it)."""
    with FakeLLM(script) as llm:
        async with acp_agent(llm, RecordingClient()) as conn:
            session = await conn.new_session(cwd=str(root))
            response = await conn.prompt(session_id=session.session_id, prompt=[text_block(PROMPT)])
            assert response.stop_reason == "end_turn"
        if strip:
            path = SessionStore(root).directory / f"{session.session_id}.json"
            record = json.loads(path.read_text())
            record.pop("conversation", None)
            path.write_text(json.dumps(record))
        second = RecordingClient()
        async with acp_agent(llm, second) as conn:
            await conn.load_session(cwd=str(root), session_id=session.session_id)
    return [u for u in second.updates if u.session_update != "available_commands_update"]


async def test_load_replays_what_the_user_saw_update_by_update(tmp_path: Path) -> None:
    root = seed_project(tmp_path / "ws")
    updates = await turn_then_load(root, {"replies": FULL_CONVERSATION})
    assert [view(u) for u in updates] == [
        ("user_message_chunk", PROMPT),
        ("tool_call", "list_files", "search", "in_progress"),
        ("tool_call_update", "completed"),
        ("tool_call", 'read_file {"paths": ["/src/app.py", "src/util.py"]}', "read", "in_progress"),
        ("tool_call_update", "completed"),
        ("agent_message_chunk", "Here is my next step.\n\n"),
        ("plan", tuple((p, "completed") for p in PLAN)),
        ("tool_call", "Create src/new.py", "edit", "in_progress"),
        ("tool_call_update", "completed"),
        ("tool_call", "Edit src/app.py", "edit", "in_progress"),
        ("tool_call_update", "completed"),
        ("tool_call", "Delete old.txt", "delete", "in_progress"),
        ("tool_call_update", "completed"),
        ("agent_message_chunk", "Done: greet() lives in src/new.py."),
    ]
    listing, read = updates[2].content[0].content.text, updates[4].content[0].content.text
    assert "src/util.py" in listing
    assert SEED_FILES["src/app.py"] in read
    diffs = [u.content[0] for u in updates[8:13:2]]
    assert [(d.path, d.old_text, d.new_text) for d in diffs] == [
        (str(root / "src/new.py"), None, NEW_MODULE),
        (str(root / "src/app.py"), SEED_FILES["src/app.py"], NEW_APP),
        (str(root / "old.txt"), SEED_FILES["old.txt"], ""),
    ]
    assert_nothing_internal(updates)


async def test_a_loaded_session_keeps_its_conversation_across_turns(tmp_path: Path) -> None:
    """Loaded, prompted again, loaded in a third process: both turns, each user message once."""
    root = tmp_path / "ws"
    root.mkdir()
    replies = [
        doc(action="text_response", text_response=a) for a in ["Paris.", "About 2.1 million."]
    ]
    with FakeLLM({"replies": replies}) as llm:
        async with acp_agent(llm, RecordingClient()) as conn:
            session = await conn.new_session(cwd=str(root))
            await conn.prompt(session_id=session.session_id, prompt=[text_block("Capital?")])
        async with acp_agent(llm, RecordingClient()) as conn:
            await conn.load_session(cwd=str(root), session_id=session.session_id)
            await conn.prompt(session_id=session.session_id, prompt=[text_block("Population?")])
        third = RecordingClient()
        async with acp_agent(llm, third) as conn:
            await conn.load_session(cwd=str(root), session_id=session.session_id)
    assert [view(u) for u in third.updates if u.session_update != "available_commands_update"] == [
        ("user_message_chunk", "Capital?"),
        ("agent_message_chunk", "Paris."),
        ("user_message_chunk", "Population?"),
        ("agent_message_chunk", "About 2.1 million."),
    ]


async def test_a_session_stored_without_its_conversation_is_shown_from_its_transcript(
    tmp_path: Path,
) -> None:
    """An older agent-ls stored only the model's transcript (documents, tool results, its
    instructions): the replay is derived from it and shows none of them."""
    root = seed_project(tmp_path / "ws")
    updates = await turn_then_load(root, {"replies": FULL_CONVERSATION}, strip=True)
    assert [view(u) for u in updates] == [
        ("user_message_chunk", PROMPT),
        ("tool_call", "list_files", "search", "in_progress"),
        ("tool_call_update", "completed"),
        ("tool_call", 'read_file {"paths": ["/src/app.py", "src/util.py"]}', "read", "in_progress"),
        ("tool_call_update", "completed"),
        ("agent_message_chunk", "Here is my next step.\n"),
        ("plan", tuple((f"/{p}", "completed") for p in PLAN)),
        ("tool_call", "Create /src/new.py", "edit", "in_progress"),
        ("tool_call_update", "completed"),
        ("tool_call", "Edit /src/app.py", "edit", "in_progress"),
        ("tool_call_update", "completed"),
        ("tool_call", "Delete /old.txt", "delete", "in_progress"),
        ("tool_call_update", "completed"),
        ("agent_message_chunk", "Done: greet() lives in src/new.py."),
    ]
    assert SEED_FILES["src/app.py"] in updates[4].content[0].content.text
    assert_nothing_internal(updates)
