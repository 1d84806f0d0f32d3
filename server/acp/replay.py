"""`session/load`: the conversation replayed as the user saw it, as `session/update`s.

What the user typed -> user_message_chunk; answer text -> agent_message_chunk; a tool call ->
tool_call then tool_call_update with its final status and output; a file a plan wrote -> an
`edit` (or `delete`) tool call then its update, completed, with the diff shown at the time;
a plan -> its entries with their final statuses; an error the user was shown ->
agent_message_chunk, worded as it was (server.acp.updates). Never a document or an
instruction agent-ls gave the model: the records come from server.conversation.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from acp import (
    plan_entry,
    start_tool_call,
    update_agent_message_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.helpers import text_block, tool_content, tool_diff_content
from acp.schema import ToolCallLocation

from server.acp.updates import tool_started
from server.protocol import (
    ShownAnswer,
    ShownEntry,
    ShownError,
    ShownFile,
    ShownPlan,
    ShownTool,
    ShownUser,
)

VERBS = {"create_file": "Create", "update_file": "Edit", "delete_file": "Delete"}


def replay(shown: Sequence[ShownEntry], root: Path) -> Iterator[Any]:
    """The session/update payloads of a stored conversation, in order."""
    for number, entry in enumerate(shown, 1):
        if isinstance(entry, ShownUser):
            yield update_user_message_text(entry.text)
        elif isinstance(entry, ShownAnswer):
            yield update_agent_message_text(entry.text)
        elif isinstance(entry, ShownTool):
            yield from _tool(f"replay-tool-{number}", entry)
        elif isinstance(entry, ShownFile):
            yield from _file(f"replay-edit-{number}", entry, root)
        elif isinstance(entry, ShownPlan):
            yield update_plan([plan_entry(e.path, status=e.status) for e in entry.entries])
        elif isinstance(entry, ShownError):
            yield update_agent_message_text(f"\n\nagent-ls: {entry.message}\n")


def _tool(call_id: str, tool: ShownTool) -> Iterator[Any]:
    yield tool_started(call_id, tool.name, tool.args)
    yield update_tool_call(
        call_id,
        status="failed" if tool.status == "failed" else "completed",
        content=[tool_content(text_block(tool.output))] if tool.output else None,
    )


def _file(call_id: str, file: ShownFile, root: Path) -> Iterator[Any]:
    absolute = file.diff.path if file.diff is not None else str(root / file.path)
    yield start_tool_call(
        call_id,
        f"{VERBS[file.action]} {file.path}",
        kind="delete" if file.action == "delete_file" else "edit",
        status="in_progress",
        locations=[ToolCallLocation(path=absolute)],
    )
    diff = file.diff
    content = None
    if diff is not None:
        content = [tool_diff_content(diff.path, diff.new_text or "", diff.old_text)]
    yield update_tool_call(call_id, status="completed", content=content)
