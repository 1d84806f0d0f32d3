"""What every provider speaks: messages in, a stream of chunks out, one error type."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Literal, Protocol

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str


@dataclass(frozen=True)
class StreamChunk:
    """A piece of the reply: text delta, or the end with the provider's finish reason."""

    text: str = ""
    finish_reason: str | None = None


class ProviderError(Exception):
    """The provider could not answer. The message names it, the HTTP status and a hint."""

    def __init__(self, provider: str, status: int | None, detail: str, hint: str) -> None:
        self.provider = provider
        self.status = status
        self.detail = detail
        self.hint = hint
        status_text = f"HTTP {status}" if status is not None else "no HTTP status"
        super().__init__(f"provider {provider} failed ({status_text}): {detail}. Hint: {hint}")


class Provider(Protocol):
    name: str

    def stream_chat(self, messages: list[ChatMessage]) -> AsyncIterator[StreamChunk]:
        """Stream the reply to `messages`; raise ProviderError when it cannot."""
        ...
