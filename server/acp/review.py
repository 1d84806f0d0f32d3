"""Review mode over ACP: a staged plan asks `session/request_permission`, one file at a time.

Every staged file is first announced as a pending `edit` tool call with its diff, so each
permission request's `toolCall` refers to a tool call the client knows; its plan entry is
`in_progress` while the user decides. The allowed files are then written (through the
client's file system when it has one) as ONE checkpoint: their tool calls end `completed`,
their entries `completed`. A rejected file's tool call ends `failed`, its entry says
"rejected" (server.acp.updates `decided`), and the model hears about it with the next
prompt. The answer the model wrote after staging is sent after the decisions.

The options: "Apply this change" (`allow_once`), "Apply all, and stop asking in this
session" (`allow_always`: what ACP's "always" means — the choice is remembered: this file,
the rest of the plan and every later plan of the session are written without asking; the
session's `review` config option turns `off`), "Reject" (`reject_once`). There is no
`reject_always`: refusing every future change of a session is not a mode anyone asked for;
review stays on and each file is asked about.

A client that answers `cancelled` (its user cancelled the prompt) and a `session/cancel`
while a request is open reject the files still undecided; nothing of the plan is written.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from acp import update_agent_message_text
from acp.helpers import tool_diff_content
from acp.schema import PermissionOption, ToolCallLocation, ToolCallStart, ToolCallUpdate

from actions.apply import Applier, ApplyRefused
from actions.checkpoints import CheckpointStore
from actions.checkpoints.types import CheckpointError
from actions.errors import ActionError
from actions.review import ReviewBoard, StagedFile, StagedPlan, apply_staged
from server.acp.updates import UpdateSink

OPTIONS = [
    PermissionOption(option_id="allow", name="Apply this change", kind="allow_once"),
    PermissionOption(
        option_id="allow_always",
        name="Apply all, and stop asking in this session",
        kind="allow_always",
    ),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
]
VERBS = {"create": "Create", "update": "Edit", "delete": "Delete"}
Answer = Literal["allow", "allow_always", "reject", "cancelled"]
CANCELLED = "the prompt was cancelled before the change was accepted"


@dataclass
class Decisions:
    """What the user decided about a staged plan."""

    allowed: list[StagedFile] = field(default_factory=list)
    rejected: list[StagedFile] = field(default_factory=list)
    review_off: bool = False  # `allow_always`: the session stops asking


def staged_call(staged: StagedFile, call_id: str) -> ToolCallUpdate:
    """The staged file as a tool call: an `edit` (or `delete`) with its diff."""
    absolute = str(staged.target.absolute)
    verb = VERBS[staged.op]
    return ToolCallUpdate(
        tool_call_id=call_id,
        title=f"{verb} {staged.path}",
        kind="delete" if staged.op == "delete" else "edit",
        status="pending",
        content=[tool_diff_content(absolute, staged.content or "", staged.base)],
        locations=[ToolCallLocation(path=absolute)],
    )


def announce(sink: UpdateSink, staged: StagedFile) -> ToolCallUpdate:
    """Send the staged file's tool call (`tool_call`); the same call, for the permission
    request that refers to it (its fields repeated: a client may show only the request)."""
    call = staged_call(staged, sink.next_id("review"))
    fields = call.model_dump(exclude={"field_meta"})
    sink.announce(staged.path, ToolCallStart(session_update="tool_call", **fields))
    return call


async def ask(client: Any, session_id: str, call: ToolCallUpdate) -> Answer:
    """The user's answer for one staged file (its tool call announced before)."""
    response = await client.request_permission(
        session_id=session_id, tool_call=call, options=OPTIONS
    )
    if getattr(response.outcome, "outcome", None) == "cancelled":
        return "cancelled"
    chosen = getattr(response.outcome, "option_id", None)
    return chosen if chosen in ("allow", "allow_always") else "reject"


async def decide(client: Any, session_id: str, plan: StagedPlan, sink: UpdateSink) -> Decisions:
    """Announce every pending file, then ask about each (until an `allow_always` or a
    cancellation decides the rest)."""
    pending = plan.pending()
    calls = {f.path: announce(sink, f) for f in pending}
    decisions = Decisions()
    answer: Answer = "allow"
    for staged in pending:
        if answer not in ("allow_always", "cancelled"):
            sink.entry(staged.path, "in_progress")
            await sink.drain()  # the tool call and the plan reach the client before the request
            answer = await ask(client, session_id, calls[staged.path])
        if answer in ("allow", "allow_always"):
            decisions.allowed.append(staged)
        else:
            decisions.rejected.append(staged)
            note = "rejected" if answer == "reject" else "cancelled"
            sink.decided(staged.path, applied=False, note=note)
    decisions.review_off = answer == "allow_always"
    return decisions


async def review_plan(
    client: Any,
    session_id: str,
    root: Path,
    plan: StagedPlan,
    applier: Applier,
    board: ReviewBoard,
    sink: UpdateSink,
) -> Decisions:
    """Ask about every staged file, apply the allowed ones, tell the user what was done."""
    try:
        decisions = await decide(client, session_id, plan, sink)
    except asyncio.CancelledError:  # session/cancel while a request was open
        undecided = plan.pending()
        board.reject(plan, undecided, CANCELLED)
        for staged in undecided:
            sink.decided(staged.path, applied=False, note="cancelled")
        raise
    checkpoint, failure = None, ""
    if decisions.allowed:
        try:
            store = await asyncio.to_thread(CheckpointStore, root)
            checkpoint = await apply_staged(store, applier, plan, decisions.allowed)
        except (ApplyRefused, ActionError, CheckpointError) as error:
            failure = f"nothing was applied: {error}"
    for staged in decisions.allowed:
        sink.decided(staged.path, applied=not failure, note="not applied")
    refused = decisions.rejected + (decisions.allowed if failure else [])
    if refused:
        reason = failure or "rejected in the editor's review"
        board.reject(plan, [f for f in refused if f.state == "pending"], reason)
    sink.release()
    sink.send(update_agent_message_text(outcome_line(decisions, checkpoint, failure)))
    return decisions


def outcome_line(decisions: Decisions, checkpoint: str | None, failure: str) -> str:
    """The line that ends the turn: what was applied, what rejected, and why not."""
    parts = []
    if decisions.allowed and not failure:
        applied = ", ".join(f.path for f in decisions.allowed)
        parts.append(f"applied {applied} (/undo reverts it)")
    if decisions.rejected:
        parts.append(f"rejected {', '.join(f.path for f in decisions.rejected)}")
    if failure:
        parts.append(failure)
    if decisions.review_off:
        parts.append("review is off for this session (its 'review' option turns it back on)")
    suffix = f" [{checkpoint}]" if checkpoint else ""
    return "\n\nagent-ls: " + "; ".join(parts) + suffix + "\n"
