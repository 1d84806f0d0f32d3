"""Provider `openai`: any OpenAI-compatible `/v1/chat/completions`, streamed over SSE.

Retries with exponential backoff (honouring Retry-After) on 429, 5xx and connection
errors, but only before the first token: once text reached the user, a failure is final
(the loop is shared with the other HTTP providers: see http.py and retry.py).
The API key goes into the Authorization header and nowhere else.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from typing_extensions import TypedDict

from actions.tools import Tool
from server.config import Config
from server.providers.base import ChatMessage, NativeToolCall, StreamChunk, tool_arguments
from server.providers.events import event_adapter, parse_event
from server.providers.http import HttpStreamProvider
from server.providers.retry import error_message

log = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class OpenAIProvider(HttpStreamProvider):
    name = "openai"
    retryable_status = RETRYABLE_STATUS
    wire_format = "OpenAI chat-completions stream"

    def __init__(self, config: Config) -> None:
        super().__init__(config, config.baseUrl)
        self.url = self.base_url + "/chat/completions"
        self.key = self.read_key(config.api_key)

    def hint(self, status: int | None) -> str:
        if status in (401, 403):
            return f"check the API key in the environment variable {self.config.apiKeyEnv}"
        if status == 404:
            return f"check agentLs.baseUrl ({self.shown_url}) and agentLs.model"
        if status == 429:
            return "the provider is rate limiting; wait and retry, or raise agentLs.maxRetries"
        if status is not None and status >= 500:
            return f"the server at {self.shown_url} is failing; check it or retry later"
        return f"is an OpenAI-compatible server running at {self.shown_url}?"

    def stream_chat(
        self, messages: list[ChatMessage], *, tools: Sequence[Tool] | None = None
    ) -> AsyncIterator[StreamChunk]:
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": [wire_message(m) for m in messages],
            "stream": True,
        }
        if tools:
            body["tools"] = [{"type": "function", "function": t.to_dict()} for t in tools]
        headers = {"Accept": "text/event-stream"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        return self.post_stream(self.url, body, headers)

    async def events(self, lines: AsyncIterator[str]) -> AsyncIterator[StreamChunk]:
        finished = False
        calls = _CallAssembler()
        async for line in lines:
            if not line.startswith("data:"):
                continue
            payload = line[5:].strip()
            if payload == "[DONE]":
                return
            event = parse_event(CHUNK_EVENT, payload, self.name)
            if event is None:
                continue
            if event.get("error") is not None:
                raise self.error(200, error_message(json.dumps({"error": event["error"]})) or "")
            for choice in event.get("choices") or []:
                delta = choice.get("delta") or {}
                calls.add(delta.get("tool_calls") or [])
                text = delta.get("content") or ""
                reason = choice.get("finish_reason")
                if text or reason:
                    done = calls.complete() if reason else ()
                    yield StreamChunk(text=text, finish_reason=reason, tool_calls=done)
                finished = finished or bool(reason)
        if not finished:
            raise self.ended_early()


class FunctionDelta(TypedDict, total=False):
    name: str | None
    arguments: str | None


class ToolCallDelta(TypedDict, total=False):
    index: int | None
    id: str | None
    function: FunctionDelta | None


class Delta(TypedDict, total=False):
    content: str | None
    tool_calls: list[ToolCallDelta] | None


class Choice(TypedDict, total=False):
    delta: Delta | None
    finish_reason: str | None


class ChunkEvent(TypedDict, total=False):
    """One `chat.completion.chunk` (or an `{"error": ...}` event)."""

    choices: list[Choice] | None
    error: Any


CHUNK_EVENT = event_adapter(ChunkEvent)


def wire_message(message: ChatMessage) -> dict[str, Any]:
    """A message in chat-completions form, native tool calls and results included."""
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for call in message.tool_calls
        ]
    if message.tool_call_id is not None:
        wire["tool_call_id"] = message.tool_call_id
    return wire


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class _CallAssembler:
    """Native tool calls arrive in pieces keyed by `index`: id and name once, arguments split."""

    def __init__(self) -> None:
        self.calls: dict[int, _PartialCall] = {}

    def add(self, pieces: list[ToolCallDelta]) -> None:
        for piece in pieces:
            call = self.calls.setdefault(piece.get("index") or 0, _PartialCall())
            call.id = piece.get("id") or call.id
            function = piece.get("function") or {}
            call.name = function.get("name") or call.name
            call.arguments.append(function.get("arguments") or "")

    def complete(self) -> tuple[NativeToolCall, ...]:
        done = []
        for index in sorted(self.calls):
            call = self.calls[index]
            arguments = tool_arguments(call.arguments)
            done.append(NativeToolCall(call.id or f"call_{index}", call.name, arguments))
        self.calls.clear()
        return tuple(done)
