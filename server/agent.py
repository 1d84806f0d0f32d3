"""One chat turn: prompt -> provider stream -> text deltas to the user -> result.

The same code serves the LSP handler and the CLI; they differ only in their ProgressSink.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from server.protocol import ChatContext, ProgressKind
from server.providers.base import ChatMessage, Provider
from server.session import ChatSession

SYSTEM_PROMPT = (
    "You are agent-ls, a coding assistant working inside the user's editor. "
    "Answer precisely and concisely."
)


class ProgressSink(Protocol):
    def emit(
        self, kind: ProgressKind, *, delta: str | None = None, data: dict[str, Any] | None = None
    ) -> None: ...


@dataclass(frozen=True)
class TurnOutcome:
    text: str
    blocks: list[dict[str, Any]]


def user_message(message: str, context: ChatContext | None) -> str:
    """The user's message with the editor context the client sent, if any."""
    if context is None:
        return message
    where = context.uri
    if context.range is not None:
        where += f" (lines {context.range.start.line + 1}-{context.range.end.line + 1})"
    parts = [message, "", f"Context: {where}"]
    if context.selection_text:
        parts += ["Selected text:", "```", context.selection_text, "```"]
    return "\n".join(parts)


async def run_turn(
    provider: Provider,
    chat: ChatSession,
    message: str,
    context: ChatContext | None,
    sink: ProgressSink,
) -> TurnOutcome:
    """Run one turn; the session keeps the exchange only when the turn completes."""
    async with chat.lock:
        user = ChatMessage("user", user_message(message, context))
        prompt = [ChatMessage("system", SYSTEM_PROMPT), *chat.messages, user]
        pieces: list[str] = []
        async for chunk in provider.stream_chat(prompt):
            if chunk.text:
                pieces.append(chunk.text)
                sink.emit("text", delta=chunk.text)
        text = "".join(pieces)
        chat.messages += [user, ChatMessage("assistant", text)]
        return TurnOutcome(text=text, blocks=blocks_of(text))


def blocks_of(text: str) -> list[dict[str, Any]]:
    """The reply's blocks in the JSON form of `agent-ls parse`."""
    return [{"type": "text", "start": 0, "end": len(text), "text": text}]
