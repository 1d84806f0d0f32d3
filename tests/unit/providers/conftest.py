"""Helpers for provider tests: every provider is driven through a real socket or process."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pytest

from actions.tools import Tool
from server.providers.base import ChatMessage, NativeToolCall, Provider, StreamChunk
from tests.fakellm import FakeLLM

READ_FILE = Tool(
    "read_file",
    "Read a file of the workspace.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


@dataclass
class Reply:
    chunks: list[StreamChunk]

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.chunks)

    @property
    def finish_reason(self) -> str | None:
        reasons = [c.finish_reason for c in self.chunks if c.finish_reason]
        return reasons[-1] if reasons else None

    @property
    def tool_calls(self) -> list[NativeToolCall]:
        return [call for c in self.chunks for call in c.tool_calls]


async def collect(
    provider: Provider, messages: list[ChatMessage], tools: Sequence[Tool] | None = None
) -> Reply:
    chunks = [chunk async for chunk in provider.stream_chat(messages, tools=tools)]
    return Reply(chunks)


def ask(text: str, system: str = "You are terse.") -> list[ChatMessage]:
    return [ChatMessage("system", system), ChatMessage("user", text)]


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM({"replies": ["Hello from the fake LLM."]}) as server:
        yield server
