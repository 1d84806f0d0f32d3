"""The conversation as the user saw it, kept beside the model's transcript.

The model's transcript (`ChatSession.messages`) holds action documents and agent-ls' own
instructions to the model ("Applied: greet.py. Reply with a continue_multi_file document...");
a resumed chat must show neither. A turn's `Recorder` sits between the agent loop and the
front end's sink and writes down what the user was shown — what they typed, the answer text,
each tool call with its final status and output, the plan with the final status of its
files, each written file (with its diff where the front end showed one), the errors — as
typed records (`server.protocol.ShownEntry`). They join the session when the turn completes
(as its messages do), are stored with it (server/history.py) and replayed by `session/load`
(server/acp/replay.py) and `agent/sessions {show}`.

A session stored before this existed has only its transcript: `derive` rebuilds a best
effort from it — the messages that started a turn, the answers of `text_response` documents
and plain replies, tool calls with their results, plans and their files — and never shows a
document or an internal prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Literal

import attrs

from parsing import ActionBlock, ToolCallBlock, parse_reply
from parsing.blocks import TextBlock
from server.protocol import (
    ErrorProgress,
    FileActionName,
    FileApplied,
    FileDiff,
    PlanProgress,
    ProgressEvent,
    ReviewProgress,
    ShownAnswer,
    ShownEntry,
    ShownError,
    ShownFile,
    ShownPlan,
    ShownPlanEntry,
    ShownTool,
    ShownUser,
    TextDelta,
    ToolCallResult,
    ToolCallStarted,
)
from server.providers.base import ChatMessage

MAX_OUTPUT = 4000  # a tool's output, as the front ends show it
MAX_DIFF = 200_000  # characters of a file's old and new text kept for its diff
TOOL_FEEDBACK = ("Result of ", "Error from ", "Results of the ")
# The review notes agent-ls puts before the user's message (actions.review.ReviewBoard)
REVIEW_NOTES = ("The user ", "Your plan ")
CONTEXT = re.compile(r"\n\n?Context: \S.*\Z", re.DOTALL)  # the editor's or client's context


class Recorder:
    """One turn's view, recorded while it streams to `sink` (a ProgressSink itself)."""

    def __init__(self, typed: str, sink: Any = None) -> None:
        self.sink = sink
        self.entries: list[ShownEntry] = [ShownUser(text=typed)]
        self.tools: list[tuple[str, int]] = []  # (name, index) of calls not answered yet
        self.plan: int | None = None  # index of the turn's current plan
        self.diffs: set[str] = set()  # files already recorded with their diff
        self.kept: list[ShownEntry] | None = None  # the session's entries, once committed

    # -- the ProgressSink -------------------------------------------------------------------
    def emit(self, event: ProgressEvent) -> None:
        self.record(event)
        if self.sink is not None:
            self.sink.emit(event)

    def record(self, event: ProgressEvent) -> None:
        if isinstance(event, TextDelta):
            self.answer(event.delta)
        elif isinstance(event, ToolCallStarted):
            self.tools.append((event.name, len(self.entries)))
            self._add(ShownTool(name=event.name, args=event.args, status="in_progress"))
        elif isinstance(event, ToolCallResult):
            self._tool_done(event)
        elif isinstance(event, PlanProgress):
            self._plan(event.description, event.files, event.applied)
        elif isinstance(event, FileApplied):
            self._file_applied(event.path, event.action)
        elif isinstance(event, ErrorProgress) and event.retry is None:
            self._add(ShownError(message=event.message))  # retries are the model's business
        elif isinstance(event, ReviewProgress):
            done = [f.path for f in event.files if f.state == "accepted"]
            self._plan(event.description, [f.path for f in event.files], done)

    # -- what front ends add ------------------------------------------------------------------
    def answer(self, text: str) -> None:
        if not text:
            return
        target = self._target()
        if target and isinstance(target[-1], ShownAnswer):
            target[-1] = ShownAnswer(text=target[-1].text + text)
        else:
            target.append(ShownAnswer(text=text))

    def file_written(self, path: str, absolute: str, old: str | None, new: str | None) -> None:
        """A plan file reached the workspace and its diff was shown (ACP's edit tool call)."""
        action: FileActionName = (
            "create_file" if old is None else ("delete_file" if new is None else "update_file")
        )
        size = len(old or "") + len(new or "")
        diff = FileDiff(path=absolute, old_text=old, new_text=new) if size <= MAX_DIFF else None
        self.diffs.add(path)
        self._add(ShownFile(path=path, action=action, diff=diff))

    def commit(self, kept: list[ShownEntry]) -> None:
        """The turn completed: its entries join the session's; later ones go straight there."""
        kept.extend(self.entries)
        self.kept = kept

    # -- steps --------------------------------------------------------------------------------
    def _target(self) -> list[ShownEntry]:
        return self.kept if self.kept is not None else self.entries

    def _add(self, entry: ShownEntry) -> None:
        self._target().append(entry)

    def _tool_done(self, event: ToolCallResult) -> None:
        found = next(((n, i) for n, i in self.tools if n == event.name), None)
        if found is None or self.kept is not None:
            return
        self.tools.remove(found)
        entry = self.entries[found[1]]
        assert isinstance(entry, ShownTool)
        status: Literal["completed", "failed"] = "completed" if event.ok else "failed"
        output = event.text[:MAX_OUTPUT] or None
        self.entries[found[1]] = attrs.evolve(entry, status=status, output=output)

    def _plan(self, description: str, files: Sequence[str], applied: Sequence[str] | None) -> None:
        if self.kept is not None or not files:
            return
        done = set(applied or ())
        entries = [
            ShownPlanEntry(path=p, status="completed" if p in done else "pending") for p in files
        ]
        if applied is not None and self.plan is not None:  # the plan's final report
            self.entries[self.plan] = ShownPlan(description=description, entries=entries)
            return
        self.plan = len(self.entries)
        self.entries.append(ShownPlan(description=description, entries=entries))

    def _file_applied(self, path: str, action: FileActionName) -> None:
        if path not in self.diffs:
            self._add(ShownFile(path=path, action=action))
        self.diffs.discard(path)
        if self.plan is None or self.kept is not None:
            return
        plan = self.entries[self.plan]
        assert isinstance(plan, ShownPlan)
        entries = [
            ShownPlanEntry(path=e.path, status="completed") if e.path == path else e
            for e in plan.entries
        ]
        self.entries[self.plan] = attrs.evolve(plan, entries=entries)


# -- a best effort from a transcript stored without its conversation -------------------------


def derive(messages: Sequence[ChatMessage]) -> list[ShownEntry]:
    """What the user saw, read back from the model's transcript: a message the user typed is
    one that started a turn (the first, or one after a reply that ended its turn)."""
    shown: list[ShownEntry] = []
    ended = True
    pending: list[ShownTool] = []
    for message in messages:
        if message.role == "user":
            if ended and not message.content.startswith(TOOL_FEEDBACK):
                shown.append(ShownUser(text=typed_text(message.content)))
            else:
                _results(shown, message.content)
            ended = False
        elif message.role == "tool" and pending:
            call = pending.pop(0)
            _finish(shown, call, "completed", message.content)
        elif message.role == "assistant":
            pending = [_native(c.name, c.arguments) for c in message.tool_calls]
            shown.extend(pending)
            ended = not message.tool_calls and _reply(shown, message.content)
    # a call whose result is not in the transcript is not shown as running forever
    return [_finished(e) if isinstance(e, ShownTool) else e for e in shown]


def _finished(tool: ShownTool) -> ShownTool:
    return attrs.evolve(tool, status="completed") if tool.status == "in_progress" else tool


def typed_text(content: str) -> str:
    """A turn's first message without the review notes and context agent-ls added to it."""
    head, sep, rest = content.partition("\n\n")
    if sep and all(line.startswith(REVIEW_NOTES) for line in head.splitlines()):
        content = rest
    return CONTEXT.sub("", content)


def _reply(shown: list[ShownEntry], content: str) -> bool:
    """The reply's text, answers, tool calls and plan files; whether it ended its turn."""
    ended = True
    for block in parse_reply(content):
        if isinstance(block, TextBlock):
            _answer(shown, block.text)
        elif isinstance(block, ToolCallBlock):
            shown.append(_native(block.name, block.args))
            ended = False
        elif isinstance(block, ActionBlock):
            ended = _document(shown, block.document) and ended
    return ended


def _document(shown: list[ShownEntry], document: dict[str, Any]) -> bool:
    """One action document as the user saw it; whether it ends the turn."""
    action = document.get("action")
    if action == "text_response":
        _answer(shown, str(document.get("text_response", "")))
        return True
    if action == "tool_call":
        call = document.get("tool_call")
        call = call if isinstance(call, dict) else {}
        args = call.get("args")
        name = str(call.get("function_name", "?"))
        shown.append(_native(name, args if isinstance(args, dict) else {}))
        return False
    plan = document.get("plan")
    if action == "start_multi_file" and isinstance(plan, dict):
        files = [str(f) for f in plan.get("files_to_modify", []) if isinstance(f, str)]
        entries = [ShownPlanEntry(path=f, status="pending") for f in files]
        shown.append(ShownPlan(description=str(plan.get("description", "")), entries=entries))
    op = document.get("first_file") or document.get("next_file")
    if isinstance(op, dict) and isinstance(op.get("file"), dict):
        _file(shown, str(op["file"].get("path", "?")), str(op.get("action", "")))
    return False


def _file(shown: list[ShownEntry], path: str, action: str) -> None:
    if action not in ("create_file", "update_file", "delete_file"):
        return
    shown.append(ShownFile(path=path, action=action))  # type: ignore[arg-type]
    for index in range(len(shown) - 1, -1, -1):
        plan = shown[index]
        if isinstance(plan, ShownPlan):
            entries = [
                ShownPlanEntry(path=e.path, status="completed") if e.path == path else e
                for e in plan.entries
            ]
            shown[index] = attrs.evolve(plan, entries=entries)
            return


def _results(shown: list[ShownEntry], content: str) -> None:
    """Tool results fed back to the model complete the calls still open (in order)."""
    if not content.startswith(TOOL_FEEDBACK):
        return
    for index, entry in enumerate(shown):
        if isinstance(entry, ShownTool) and entry.status == "in_progress":
            failed = content.startswith("Error from ")
            body = content.partition("\n")[2]
            shown[index] = attrs.evolve(
                entry,
                status="failed" if failed else "completed",
                output=body[:MAX_OUTPUT] or None,
            )
            if not content.startswith("Results of the "):
                return


def _finish(
    shown: list[ShownEntry], call: ShownTool, status: Literal["completed"], output: str
) -> None:
    for index, entry in enumerate(shown):
        if entry is call:
            shown[index] = attrs.evolve(call, status=status, output=output[:MAX_OUTPUT] or None)
            return


def _native(name: str, args: Any) -> ShownTool:
    if not isinstance(args, dict):
        try:
            args = json.loads(args) if isinstance(args, str) else {}
        except ValueError:
            args = {}
    return ShownTool(name=name, args=args if isinstance(args, dict) else {}, status="in_progress")


def _answer(shown: list[ShownEntry], text: str) -> None:
    if not text.strip():
        return
    if shown and isinstance(shown[-1], ShownAnswer):
        shown[-1] = ShownAnswer(text=shown[-1].text + text)
    else:
        shown.append(ShownAnswer(text=text))
