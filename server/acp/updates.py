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
from acp.schema import PlanEntry, ToolCallLocation, ToolKind

log = logging.getLogger(__name__)

TOOL_KINDS: dict[str, ToolKind] = {
    "list_files": "search",
    "read_file": "read",
    "search_files": "search",
    "search_docs": "search",
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

    def next_id(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}-{self.counter}"

    # -- the agent loop's ProgressSink --------------------------------------------------------
    def emit(self, kind: str, *, delta: str | None = None, data: Any = None) -> None:
        fields: dict[str, Any] = _fields(data)
        if kind == "text":
            if delta:
                self.send(update_agent_message_text(delta))
        elif kind == "tool_call":
            self._tool_started(fields)
        elif kind == "tool_result":
            self._tool_finished(fields)
        elif kind == "plan":
            self._plan(fields)
        elif kind == "file_applied":
            self._file_done(str(fields.get("path", "")))
        elif kind == "error":
            self._error(fields)

    def _tool_started(self, fields: dict[str, Any]) -> None:
        name = str(fields.get("name", "tool"))
        args = fields.get("args") or {}
        call_id = self.next_id("tool")
        self.pending_tools.append((name, call_id))
        paths = [str(p) for p in _paths(args)]
        self.send(
            start_tool_call(
                call_id,
                _title(name, args),
                kind=TOOL_KINDS.get(name, "other"),
                status="in_progress",
                locations=[ToolCallLocation(path=p) for p in paths] or None,
                raw_input=args,
            )
        )

    def _tool_finished(self, fields: dict[str, Any]) -> None:
        name = str(fields.get("name", "tool"))
        call_id = next((cid for n, cid in self.pending_tools if n == name), None)
        if call_id is None:
            return
        self.pending_tools.remove((name, call_id))
        text = str(fields.get("text", ""))[:MAX_TOOL_OUTPUT]
        self.send(
            update_tool_call(
                call_id,
                status="completed" if fields.get("ok") else "failed",
                content=[tool_content(text_block(text))] if text else None,
                raw_output={"ok": bool(fields.get("ok")), "text": text},
            )
        )

    def _plan(self, fields: dict[str, Any]) -> None:
        files = [str(f) for f in fields.get("files", [])]
        if not files:
            return
        done = set(fields.get("applied", []))
        self.plan = [
            plan_entry(path, status="completed" if path in done else "pending") for path in files
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

    def _error(self, fields: dict[str, Any]) -> None:
        message = str(fields.get("message", "error"))
        if "retry" in fields:  # the model is told and may fix it: a thought, not the answer
            self.send(update_agent_thought_text(f"agent-ls: {message}\n"))
        else:
            self.send(update_agent_message_text(f"\n\nagent-ls: {message}\n"))

    def file_written(self, path: str, absolute: str, old: str | None, new: str | None) -> None:
        """A file of a plan reached the workspace: an `edit` tool call with its diff."""
        verb = "Create" if old is None else ("Delete" if new is None else "Edit")
        self.send(
            start_tool_call(
                self.next_id("edit"),
                f"{verb} {path}",
                kind="delete" if new is None else "edit",
                status="completed",
                content=[tool_diff_content(absolute, new or "", old)],
                locations=[ToolCallLocation(path=absolute)],
            )
        )


def _fields(data: Any) -> dict[str, Any]:
    """The event's fields, whether it came as a dict or as a typed (attrs) record."""
    if data is None:
        return {}
    if isinstance(data, dict):
        return data
    try:
        import attrs

        return attrs.asdict(data)
    except (TypeError, ImportError):
        return dict(getattr(data, "__dict__", {}))


def _paths(args: Any) -> list[Any]:
    if not isinstance(args, dict):
        return []
    if isinstance(args.get("paths"), list):
        return [p for p in args["paths"] if isinstance(p, str)]
    return [args["path"]] if isinstance(args.get("path"), str) else []


def _title(name: str, args: Any) -> str:
    shown = json.dumps(args, ensure_ascii=False) if args else ""
    return f"{name} {shown}".strip()[:200]
