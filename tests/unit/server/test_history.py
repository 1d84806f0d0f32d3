"""History trimming: a long session stays within its context budget; the current turn and
the newest exchanges survive; tool outputs go first."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from actions.tools import ToolRegistry
from server.history import ELIDED, message_size, trim_history
from server.providers.base import ChatMessage, StreamChunk
from server.turns.loop import run_turn
from server.turns.turn import Agent, ChatSession


class RecordingProvider:
    """A Provider that answers every request with a long reply and records what it got."""

    name = "recording"

    def __init__(self) -> None:
        self.sent: list[list[ChatMessage]] = []

    async def stream_chat(
        self, messages: list[ChatMessage], *, tools: Sequence[Any] | None = None
    ) -> AsyncIterator[StreamChunk]:
        self.sent.append(list(messages))
        yield StreamChunk(text=f"answer {len(self.sent)} " + "x" * 400)
        yield StreamChunk(finish_reason="stop")


class Sink:
    def emit(self, event: Any) -> None:
        return None


async def test_500_turns_stay_within_the_budget() -> None:
    provider = RecordingProvider()
    budget = 20_000
    agent = Agent(provider, ToolRegistry(), None, "(no folder)", history_chars=budget)
    chat = ChatSession("long")
    for turn in range(500):
        await run_turn(agent, chat, f"question {turn} " + "q" * 200, None, Sink())
    sizes = [sum(message_size(m) for m in sent) for sent in provider.sent]
    current = message_size(ChatMessage("user", "question 499 " + "q" * 200))
    assert max(sizes) <= budget + current
    last = provider.sent[-1]
    assert last[-1].content.startswith("question 499")  # the current turn is whole
    assert last[-2].content.startswith("answer 499")  # the newest exchange survived
    assert not any(m.content.startswith("question 0 ") for m in last)  # the oldest went


def test_tool_outputs_are_elided_before_exchanges_are_dropped() -> None:
    history = [
        ChatMessage("user", "read it"),
        ChatMessage("assistant", '{"action": "tool_call"}'),
        ChatMessage("user", "Result of read_file {}:\n" + "y" * 5000),
        ChatMessage("assistant", "done"),
        ChatMessage("user", "next"),
        ChatMessage("assistant", "ok"),
    ]
    trimmed = trim_history(history, 1000)
    assert [m.content for m in trimmed][:2] == ["read it", '{"action": "tool_call"}']
    assert trimmed[2].content == ELIDED
    assert trimmed[-1].content == "ok"
    assert trim_history(history, 10**9) == history
