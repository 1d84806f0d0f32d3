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

import httpx

from actions.tools import Tool
from server.config import Config
from server.providers.base import ChatMessage, NativeToolCall, StreamChunk, tool_arguments
from server.providers.http import HttpStreamProvider
from server.providers.retry import RetryableFailure, error_message

log = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class OpenAIProvider(HttpStreamProvider):
    name = "openai"
    retryable_status = RETRYABLE_STATUS

    def __init__(self, config: Config) -> None:
        super().__init__(config, config.baseUrl)
        self.url = self.base_url + "/chat/completions"

    def secret(self) -> str | None:
        return self.config.api_key()

    def hint(self, status: int | None) -> str:
        if status in (401, 403):
            return f"check the API key in the environment variable {self.config.apiKeyEnv}"
        if status == 404:
            return f"check agentLs.baseUrl ({self.config.baseUrl}) and agentLs.model"
        if status == 429:
            return "the provider is rate limiting; wait and retry, or raise agentLs.maxRetries"
        if status is not None and status >= 500:
            return f"the server at {self.config.baseUrl} is failing; check it or retry later"
        return f"is an OpenAI-compatible server running at {self.config.baseUrl}?"

    def connection_failed(self, url: str, exc: httpx.TransportError) -> str:
        return f"connection failed: {type(exc).__name__}: {exc}"

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
        key = self.config.api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return self.post_stream(self.url, body, headers)

    async def events(self, response: httpx.Response) -> AsyncIterator[StreamChunk]:
        finished = False
        calls = _CallAssembler()
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue
            payload = line[5:].strip()
            if payload == "[DONE]":
                return
            try:
                event = json.loads(payload)
            except json.JSONDecodeError:
                log.warning("openai: skipped a malformed SSE data line (%d chars)", len(payload))
                continue
            if not isinstance(event, dict):
                continue
            if "error" in event:
                raise self.error(response.status_code, error_message(json.dumps(event)) or "")
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
            raise RetryableFailure(
                response.status_code, "the stream ended before the reply was done"
            )


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

    def add(self, pieces: list[dict[str, Any]]) -> None:
        for piece in pieces:
            call = self.calls.setdefault(int(piece.get("index", 0)), _PartialCall())
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
