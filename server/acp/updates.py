"""Agent steps as ACP `session/update` notifications.

The agent loop reports its steps through a synchronous `emit`; ACP notifications are
async requests on the connection. `UpdateSink` queues each update and one pump task sends
them in order, so the client sees text, tool calls, plan entries and diffs exactly in the
order they happened; `drain()` waits until all were sent (before the prompt answers).

Mapping: text -> agent_message_chunk; tool_call / tool_result -> tool_call (in_progress) and
tool_call_update (completed / failed, with the output); plan -> plan entries (one per file,
pending -> completed as files land); each written file -> an `edit` tool call carrying a diff
(sent by `server.acp.files`); errors the model gets to fix -> agent_thought_chunk; an error
that ends or rolls back the turn -> agent_message_chunk.

Review mode (server.acp.review): a staged file leaves its entry pending, and the text after
the first staged file is held back (`release()` sends it once the user has decided: the
answer is read after the decisions it talks about); each staged file is announced as a
pending `edit` tool call (`announce`) before its permission request refers to it, and ends
`completed` when written or `failed` when rejected (`decided`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from typing import Any, Protocol

from acp import (
    plan_entry,
    start_tool_call,
    update_agent_message_text,
    update_agent_thought_text,
    update_plan,
    update_tool_call,
)
from acp.helpers import text_block, tool_content, tool_diff_content
from acp.schema import (
    PlanEntry,
    PlanEntryStatus,
    ToolCallLocation,
    ToolCallStart,
    ToolCallStatus,
    ToolKind,
)

from server.protocol import (
    ErrorProgress,
    FileApplied,
    FileStaged,
    JsonObject,
    PlanProgress,
    ProgressEvent,
    TextDelta,
    ToolCallResult,
    ToolCallStarted,
)

log = logging.getLogger(__name__)

TOOL_KINDS: dict[str, ToolKind] = {
    "list_files": "search",
    "read_file": "read",
    "search_files": "search",
    "search_docs": "search",
    "find_symbol": "search",
    "run_command": "execute",
}
MAX_TOOL_OUTPUT = 4000


class UpdateClient(Protocol):
    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None: ...


class UpdateSink:
    """One prompt's progress, sent to the client as ordered session/update notifications."""

    def __init__(self, client: UpdateClient, session_id: str) -> None:
        self.client = client
        self.session_id = session_id
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.pump = asyncio.create_task(self._pump())
        self.counter = 0
        self.pending_tools: deque[tuple[str, str]] = deque()
        self.plan: list[PlanEntry] = []
        self.held: list[str] | None = None  # review mode: the answer, held after staging
        self.reviewed: dict[str, str] = {}  # review mode: staged path -> its tool call id
        self.recorder: Any = None  # a turn's server.conversation.Recorder (the diffs it keeps)

    async def _pump(self) -> None:
        while True:
            update = await self.queue.get()
            try:
                await self.client.session_update(session_id=self.session_id, update=update)
            except Exception:  # a client that cannot take an update must not stop the turn
                log.exception("session/update could not be sent")
            finally:
                self.queue.task_done()

    def send(self, update: Any) -> None:
        self.queue.put_nowait(update)

    async def drain(self) -> None:
        await self.queue.join()

    async def close(self) -> None:
        await self.drain()
        self.pump.cancel()

    def running(self, name: str) -> str | None:
        """The id of the latest call of tool `name` still running (None: none)."""
        return next((cid for n, cid in reversed(self.pending_tools) if n == name), None)

    def next_id(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}-{self.counter}"

    # -- the agent loop's ProgressSink --------------------------------------------------------
    def emit(self, event: ProgressEvent) -> None:
        if isinstance(event, TextDelta):
            if event.delta and self.held is not None:
                self.held.append(event.delta)
            elif event.delta:
                self.send(update_agent_message_text(event.delta))
        elif isinstance(event, FileStaged):
            if self.held is None:
                self.held = []
        elif isinstance(event, ToolCallStarted):
            self._tool_started(event)
        elif isinstance(event, ToolCallResult):
            self._tool_finished(event)
        elif isinstance(event, PlanProgress):
            self._plan(event)
        elif isinstance(event, FileApplied):
            self._file_done(event.path)
        elif isinstance(event, ErrorProgress):
            self._error(event)

    def _tool_started(self, event: ToolCallStarted) -> None:
        call_id = self.next_id("tool")
        self.pending_tools.append((event.name, call_id))
        self.send(tool_started(call_id, event.name, event.args))

    def _tool_finished(self, event: ToolCallResult) -> None:
        call_id = next((cid for n, cid in self.pending_tools if n == event.name), None)
        if call_id is None:
            return
        self.pending_tools.remove((event.name, call_id))
        text = event.text[:MAX_TOOL_OUTPUT]
        self.send(
            update_tool_call(
                call_id,
                status="completed" if event.ok else "failed",
                content=[tool_content(text_block(text))] if text else None,
                raw_output={"ok": event.ok, "text": text},
            )
        )

    def _plan(self, event: PlanProgress) -> None:
        if not event.files:
            return
        done = set(event.applied or [])
        self.plan = [
            plan_entry(path, status="completed" if path in done else "pending")
            for path in event.files
        ]
        self.send(update_plan(self.plan))

    def _file_done(self, path: str) -> None:
        changed = False
        for index, entry in enumerate(self.plan):
            if entry.content == path and entry.status != "completed":
                self.plan[index] = plan_entry(path, status="completed")
                changed = True
        if changed:
            self.send(update_plan(self.plan))

    def release(self) -> None:
        """Send the answer held back since the first staged file (review mode)."""
        held, self.held = self.held, None
        if held:
            self.send(update_agent_message_text("".join(held)))

    # -- review mode (server.acp.review) ------------------------------------------------------
    def announce(self, path: str, call: ToolCallStart) -> None:
        """A staged file as a pending tool call (its diff): announced before it is asked about."""
        self.reviewed[path] = call.tool_call_id
        self.send(call)

    def entry(self, path: str, status: PlanEntryStatus, note: str = "") -> None:
        """Set the plan entry of `path` (added if the plan did not list it) and send the plan."""
        content = f"{path} ({note})" if note else path
        for index, entry in enumerate(self.plan):
            if entry.content == path or entry.content.startswith(f"{path} ("):
                self.plan[index] = plan_entry(content, status=status)
                break
        else:
            self.plan.append(plan_entry(content, status=status))
        self.send(update_plan(self.plan))

    def decided(self, path: str, applied: bool, note: str = "") -> None:
        """The user's decision on a staged file reached its end: written or not. ACP's plan
        entries know only pending / in_progress / completed, so a rejected file's entry is
        `completed` (decided: nothing left to do) and says "rejected"; its tool call, whose
        status can say so, ends `failed`."""
        call_id = self.reviewed.pop(path, None)
        if call_id is not None:
            status: ToolCallStatus = "completed" if applied else "failed"
            self.send(update_tool_call(call_id, status=status))
        self.entry(path, "completed", "" if applied else note or "rejected")

    def _error(self, event: ErrorProgress) -> None:
        if event.retry is not None:  # the model is told and may fix it: a thought
            self.send(update_agent_thought_text(f"agent-ls: {event.message}\n"))
        else:
            self.send(update_agent_message_text(f"\n\nagent-ls: {event.message}\n"))

    def file_written(self, path: str, absolute: str, old: str | None, new: str | None) -> None:
        """A file of a plan reached the workspace: an `edit` tool call with its diff (a file
        under review already has its tool call, which `decided` completes)."""
        if self.recorder is not None:
            self.recorder.file_written(path, absolute, old, new)
        if path in self.reviewed:
            return
        self.send(
            start_tool_call(
                self.next_id("edit"),
                f"{_verb(old, new)} {path}",
                kind="delete" if new is None else "edit",
                status="completed",
                content=[tool_diff_content(absolute, new or "", old)],
                locations=[ToolCallLocation(path=absolute)],
            )
        )


def _verb(old: str | None, new: str | None) -> str:
    return "Create" if old is None else ("Delete" if new is None else "Edit")


def tool_started(call_id: str, name: str, args: JsonObject) -> Any:
    """A tool call as it starts: its title, kind, the paths it names, its arguments (live,
    and again when session/load replays it)."""
    paths = _paths(args)
    return start_tool_call(
        call_id,
        _title(name, args),
        kind=TOOL_KINDS.get(name, "other"),
        status="in_progress",
        locations=[ToolCallLocation(path=p) for p in paths] or None,
        raw_input=args,
    )


def _paths(args: JsonObject) -> list[str]:
    paths = args.get("paths")
    if isinstance(paths, list):
        return [p for p in paths if isinstance(p, str)]
    path = args.get("path")
    return [path] if isinstance(path, str) else []


def _title(name: str, args: Any) -> str:
    if name == "run_command" and isinstance(args, dict) and isinstance(args.get("command"), str):
        return f"Run: {args['command']}"[:200]
    shown = json.dumps(args, ensure_ascii=False) if args else ""
    if name.startswith("mcp__") and "__" in name[5:]:  # an MCP tool: its server is the source
        server, tool = name[5:].split("__", 1)
        return f"{server}: {tool} {shown}".strip()[:200]
    return f"{name} {shown}".strip()[:200]
