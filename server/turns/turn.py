"""The state of one chat turn and what it works with (used by the loop in `server.turns.loop` and
the plan steps in `server.turns.plan`): the agent, the session, the sink of progress events, and
how an unusable document is reported and counted against the turn's retries."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Literal, Protocol

from actions.plans import PlanFiles, PlanRun
from actions.tool_adapters import ToolAdapter
from actions.tools import ToolRegistry
from server.protocol import (
    BlockRecord,
    ChatResult,
    ErrorProgress,
    PlanSummary,
    ProgressEvent,
    ReviewPlan,
    ShownEntry,
    TextDelta,
)
from server.providers.base import ChatMessage, Provider

JSON_ADAPTER = ToolAdapter("json")


class ProgressSink(Protocol):
    """Where a turn's steps go as they happen (the LSP client, the terminal, a test)."""

    def emit(self, event: ProgressEvent) -> None: ...


@dataclass
class ChatSession:
    """One conversation; turns of the same session run one at a time."""

    id: str
    messages: list[ChatMessage] = field(default_factory=list)  # the model's transcript
    shown: list[ShownEntry] = field(default_factory=list)  # what the user saw (server.conversation)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    allowed_commands: set[str] = field(default_factory=set)  # "Always allow" answers
    allowed_tools: set[str] = field(default_factory=set)  # MCP tools allowed always


class AgentError(Exception):
    """The turn cannot go on (too many invalid documents, turn limit, a failed write)."""


@dataclass(frozen=True)
class Agent:
    """What a turn works with."""

    provider: Provider
    registry: ToolRegistry
    plans: PlanFiles | None
    workspace_name: str
    adapter: ToolAdapter = JSON_ADAPTER
    max_turns: int = 25
    max_retries: int = 3
    history_chars: int | None = None  # earlier turns are trimmed to this (None: kept whole)
    folders: tuple[str, ...] = ()  # the folder names of a multi-root workspace
    staging: bool = False  # review mode: plan files are staged, the model is told so
    rules: str = ""  # the project's rules files, the system prompt's section (actions.rules)


@dataclass(frozen=True)
class TurnOutcome:
    text: str
    blocks: list[BlockRecord]
    plan: PlanSummary | ReviewPlan | None = None
    checkpoint_id: str | None = None

    def result(self, session_id: str) -> ChatResult:
        """The turn as `agent/chat` returns it."""
        return ChatResult(
            session_id=session_id,
            text=self.text,
            blocks=self.blocks,
            plan=self.plan,
            checkpoint_id=self.checkpoint_id,
        )


@dataclass
class Turn:
    """State of the turn in progress."""

    agent: Agent
    session_id: str
    sink: ProgressSink
    texts: list[str] = field(default_factory=list)
    blocks: list[BlockRecord] = field(default_factory=list)
    retries: int = 0
    replies: int = 0
    plan: PlanRun | None = None
    done: bool = False
    tools_called: list[str] = field(default_factory=list)
    refusals: int = 0  # writes the editor refused in this turn (each rolled its plan back)

    def say(self, text: str) -> None:
        if text:
            self.texts.append(text)
            self.sink.emit(TextDelta(delta=text))


@dataclass(frozen=True)
class DocumentOutcome:
    kind: Literal["answer", "tool", "plan", "refused", "error"]
    """refused: a plan file that was not written (search/replace failed...): the model is
    told why and the plan goes on; error: an unusable document (counts as a retry)."""
    text: str = ""


def report_error(turn: Turn, message: str) -> str:
    """An error about one document, shown to the user (counted once per reply)."""
    turn.sink.emit(ErrorProgress(message=message, retry=turn.retries + 1))
    return message


def count_retry(turn: Turn, message: str) -> None:
    turn.retries += 1
    if turn.retries > turn.agent.max_retries:
        raise AgentError(
            f"the model sent {turn.retries} invalid documents or cut-off replies in this turn; "
            f"last error: {message}"
        )


def retry(turn: Turn, message: str) -> str:
    report_error(turn, message)
    count_retry(turn, message)
    return message
