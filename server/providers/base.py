"""What every provider speaks: messages in, a stream of chunks out, one error type.

Native tool calling (providers whose API has it): `stream_chat(..., tools=manifests)` sends
the tool manifests in the provider's own form; the provider assembles the streamed call
arguments and reports complete `NativeToolCall`s on a chunk (usually the last). The
conversation carries them back as an assistant message with `tool_calls` and one `tool`
message per result (`tool_call_id`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from actions.tools import Tool
from server.redact import redact

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class NativeToolCall:
    """A complete tool call from a provider's native tool API."""

    id: str
    name: str
    arguments: dict[str, Any]


def tool_arguments(pieces: list[str]) -> dict[str, Any]:
    """A native call's streamed argument pieces as an object. Text that is not a JSON object
    is kept under `_invalid_json`, so the tool's schema check reports it to the model."""
    raw = "".join(pieces).strip() or "{}"
    try:
        arguments = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        return {"_invalid_json": raw}
    return arguments if isinstance(arguments, dict) else {"_invalid_json": raw}


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str
    tool_calls: tuple[NativeToolCall, ...] = ()  # assistant messages with native calls
    tool_call_id: str | None = None  # tool messages: which call this is the result of


@dataclass(frozen=True)
class StreamChunk:
    """A piece of the reply: text delta, native tool calls, or the end (finish reason)."""

    text: str = ""
    finish_reason: str | None = None
    tool_calls: tuple[NativeToolCall, ...] = ()


class ProviderError(Exception):
    """The provider could not answer. The message names it, the HTTP status and a hint;
    secrets (API keys, URL user-info) are masked in all of them."""

    def __init__(self, provider: str, status: int | None, detail: str, hint: str) -> None:
        self.provider = provider
        self.status = status
        self.detail = redact(detail)
        self.hint = redact(hint)
        detail, hint = self.detail, self.hint
        status_text = f"HTTP {status}" if status is not None else "no HTTP status"
        super().__init__(f"provider {provider} failed ({status_text}): {detail}. Hint: {hint}")


class Provider(Protocol):
    name: str

    def stream_chat(
        self, messages: list[ChatMessage], *, tools: Sequence[Tool] | None = None
    ) -> AsyncIterator[StreamChunk]:
        """Stream the reply to `messages`; raise ProviderError when it cannot.

        `tools` (native tool calling) is only passed to providers whose API supports it.
        """
        ...
