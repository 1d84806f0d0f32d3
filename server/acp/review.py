"""Review mode over ACP: a staged plan asks `session/request_permission`, one file at a time.

Each staged file is shown as an `edit` tool call with its diff; the user allows or rejects
it. The allowed files are then written (through the client's file system when it has one)
as ONE checkpoint; the rejected ones are discarded and the model hears about them with the
next prompt. A client that cancels the request rejects the files still undecided.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp.helpers import tool_diff_content
from acp.schema import PermissionOption, ToolCallLocation, ToolCallUpdate

from actions.apply import Applier
from actions.checkpoints import CheckpointStore
from actions.review import ReviewBoard, StagedFile, StagedPlan, apply_staged

OPTIONS = [
    PermissionOption(option_id="allow", name="Apply this change", kind="allow_once"),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
]
VERBS = {"create": "Create", "update": "Edit", "delete": "Delete"}


async def ask(client: Any, session_id: str, staged: StagedFile, index: int) -> str:
    """The user's answer for this file: "allow", "reject" or "cancelled"."""
    absolute = str(staged.target.absolute)
    call = ToolCallUpdate(
        tool_call_id=f"review-{index}",
        title=f"{VERBS[staged.op]} {staged.path}",
        kind="delete" if staged.op == "delete" else "edit",
        status="pending",
        content=[tool_diff_content(absolute, staged.content or "", staged.base)],
        locations=[ToolCallLocation(path=absolute)],
    )
    response = await client.request_permission(
        session_id=session_id, tool_call=call, options=OPTIONS
    )
    if getattr(response.outcome, "outcome", None) == "cancelled":
        return "cancelled"
    return "allow" if getattr(response.outcome, "option_id", None) == "allow" else "reject"


async def review_plan(
    client: Any,
    session_id: str,
    root: Path,
    plan: StagedPlan,
    applier: Applier,
    board: ReviewBoard,
) -> str:
    """Ask about every staged file, apply the allowed ones; a line for the user."""
    allowed: list[StagedFile] = []
    rejected: list[StagedFile] = []
    answer = ""
    for index, staged in enumerate(plan.pending()):
        if answer != "cancelled":
            answer = await ask(client, session_id, staged, index)
        (allowed if answer == "allow" else rejected).append(staged)
    checkpoint = None
    if allowed:
        store = await asyncio.to_thread(CheckpointStore, root)
        checkpoint = await apply_staged(store, applier, plan, allowed)
    if rejected:
        board.reject(plan, rejected, "rejected in the editor's review")
    parts = []
    if allowed:
        parts.append(f"applied {', '.join(f.path for f in allowed)} (/undo reverts it)")
    if rejected:
        parts.append(f"rejected {', '.join(f.path for f in rejected)}")
    suffix = f" [{checkpoint}]" if checkpoint else ""
    return "\n\nagent-ls: " + "; ".join(parts) + suffix + "\n"
