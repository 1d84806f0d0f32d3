"""The state of a turn, for providers that constrain decoding to the documents valid in it.

The agent loop builds a `TurnState` before each reply and passes it only to providers that
implement `ConstrainedProvider` (the embedded model, whose grammar is rebuilt from it); every
other provider keeps the plain `Provider.stream_chat`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from actions.tools import Tool
from server.providers.base import ChatMessage, StreamChunk


@dataclass(frozen=True)
class TurnState:
    """What the next document of the turn may be.

    `files`: the workspace's files (relative posix paths) that exist now; None when unknown
    (too many to list, or no folder open): paths are then only checked for their characters.
    `plan_remaining`: None when no plan is in progress, else the planned files not applied yet
    (empty: the plan is complete). `can_edit`: a workspace folder is open (plans possible).
    `tools_called`: the names of the tools called so far in this turn, in order.
    """

    tools: tuple[Tool, ...] = ()
    files: tuple[str, ...] | None = None
    plan_remaining: tuple[str, ...] | None = None
    can_edit: bool = True
    tools_called: tuple[str, ...] = ()


@runtime_checkable
class ConstrainedProvider(Protocol):
    """A provider whose decoding admits only the documents valid in the turn's state."""

    name: str

    def stream_constrained(
        self, messages: list[ChatMessage], *, state: TurnState
    ) -> AsyncIterator[StreamChunk]:
        """Like `Provider.stream_chat`, the reply constrained to what `state` allows."""
        ...


def file_state(files: Sequence[str] | None, limit: int) -> tuple[str, ...] | None:
    """`files` as a TurnState field: None when unknown or over `limit` (grammar size)."""
    if files is None or len(files) > limit:
        return None
    return tuple(sorted(files))
