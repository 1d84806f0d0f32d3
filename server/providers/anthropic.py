"""Provider `anthropic`: the Messages API (`POST {baseUrl}/v1/messages`), streamed over SSE.

System messages become the top-level `system`; native tools go as `tools` with
`input_schema`, and `tool_use` blocks come back as NativeToolCalls (their `input_json_delta`
pieces assembled). Prior calls and results travel as `tool_use` / `tool_result` blocks;
consecutive messages of one role are merged, as the API wants alternating roles.
The key comes from `apiKeyEnv` (when set), ANTHROPIC_API_KEY, or AGENT_LS_API_KEY and is
sent only in the x-api-key header. Retries as for `openai` (see retry.py).
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from typing_extensions import TypedDict

from actions.tools import Tool
from server.config import API_KEY_ENV, Config, clean_api_key
from server.providers.base import ChatMessage, NativeToolCall, StreamChunk, tool_arguments
from server.providers.defaults import provider_base_url, provider_model
from server.providers.events import event_adapter, parse_event
from server.providers.http import HttpStreamProvider
from server.providers.retry import RetryableFailure

log = logging.getLogger(__name__)

ANTHROPIC_KEY_ENV = "ANTHROPIC_API_KEY"
API_VERSION = "2023-06-01"
STOP_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length"}
STOP_REASONS |= {"tool_use": "tool_calls", "pause_turn": "stop", "refusal": "stop"}
RETRYABLE_EVENT_ERRORS = {"overloaded_error": 529, "api_error": 500, "rate_limit_error": 429}


def anthropic_key(config: Config, environ: Mapping[str, str] | None = None) -> str | None:
    """`apiKeyEnv` when the user named one, else ANTHROPIC_API_KEY, else AGENT_LS_API_KEY
    (each cleaned by `clean_api_key`: may raise ApiKeyError)."""
    env = os.environ if environ is None else environ
    names = [ANTHROPIC_KEY_ENV, API_KEY_ENV]
    if config.apiKeyEnv != API_KEY_ENV:
        names.insert(0, config.apiKeyEnv)
    return next((k for n in names if (k := clean_api_key(n, env.get(n)))), None)


class AnthropicProvider(HttpStreamProvider):
    name = "anthropic"
    wire_format = "Anthropic Messages stream"

    def __init__(self, config: Config) -> None:
        base = provider_base_url(config, "anthropic")
        if base.rstrip("/").endswith("/v1"):
            base = base.rstrip("/")[:-3]
        super().__init__(config, base)
        self.url = self.base_url + "/v1/messages"
        self.model = provider_model(config, "anthropic")
        self.key = self.read_key(lambda: anthropic_key(config))

    def hint(self, status: int | None) -> str:
        if status in (401, 403):
            return f"check the API key in {ANTHROPIC_KEY_ENV} (or the variable named by apiKeyEnv)"
        if status == 404:
            return f"check agentLs.baseUrl ({self.shown_url}) and agentLs.model ({self.model})"
        if status in (429, 529):
            return "Anthropic is rate limiting or overloaded; wait and retry"
        if status is not None and status >= 500:
            return f"the API at {self.shown_url} is failing; retry later"
        if status == 400:
            return "the request was refused; check agentLs.model and agentLs.maxTokens"
        return f"is {self.shown_url} reachable from here?"

    def stream_chat(
        self, messages: list[ChatMessage], *, tools: Sequence[Tool] | None = None
    ) -> AsyncIterator[StreamChunk]:
        system, wire = wire_messages(messages)
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.config.maxTokens,
            "messages": wire,
            "stream": True,
        }
        if system:
            body["system"] = system
        if tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters}
                for t in tools
            ]
        headers = {"anthropic-version": API_VERSION, "Accept": "text/event-stream"}
        if self.key:
            headers["x-api-key"] = self.key
        return self.post_stream(self.url, body, headers)

    async def events(self, lines: AsyncIterator[str]) -> AsyncIterator[StreamChunk]:
        state = _StreamState()
        async for line in lines:
            if not line.startswith("data:"):
                continue
            event = parse_event(EVENT, line[5:].strip(), self.name)
            if event is None:
                continue
            if event.get("type") == "error":
                raise self._stream_error(event.get("error"))
            chunk = state.handle(event)
            if chunk is not None:
                yield chunk
            if state.stopped:
                return
        raise self.ended_early()

    def _stream_error(self, error: Any) -> Exception:
        error = error if isinstance(error, dict) else {}
        kind = str(error.get("type") or "error")
        detail = f"{kind}: {error.get('message') or 'error event in the stream'}"
        if kind in RETRYABLE_EVENT_ERRORS:
            return RetryableFailure(RETRYABLE_EVENT_ERRORS[kind], detail)
        return self.error(None, detail)


class ContentBlock(TypedDict, total=False):
    type: str | None
    id: str | None
    name: str | None


class Delta(TypedDict, total=False):
    """`content_block_delta` (text / partial_json) or `message_delta` (stop_reason)."""

    type: str | None
    text: str | None
    partial_json: str | None
    stop_reason: str | None


class Event(TypedDict, total=False):
    """One Messages-API stream event."""

    type: str | None
    index: int | None
    content_block: ContentBlock | None
    delta: Delta | None
    error: Any


EVENT = event_adapter(Event)


@dataclass
class _Block:
    id: str = ""
    name: str = ""
    pieces: list[str] = field(default_factory=list)


@dataclass
class _StreamState:
    """Tool-use blocks in progress, the stop reason, and whether message_stop came."""

    tool_blocks: dict[int, _Block] = field(default_factory=dict)
    stop_reason: str | None = None
    stopped: bool = False

    def handle(self, event: Event) -> StreamChunk | None:
        kind, index = event.get("type"), event.get("index")
        if kind == "content_block_start":
            block = event.get("content_block") or {}
            if block.get("type") == "tool_use" and index is not None:
                self.tool_blocks[index] = _Block(block.get("id") or "", block.get("name") or "")
        elif kind == "content_block_delta":
            delta = event.get("delta") or {}
            text = delta.get("text")
            if delta.get("type") == "text_delta" and text:
                return StreamChunk(text=text)
            if delta.get("type") == "input_json_delta" and index in self.tool_blocks:
                self.tool_blocks[index].pieces.append(delta.get("partial_json") or "")
        elif kind == "message_delta":
            reason = (event.get("delta") or {}).get("stop_reason")
            self.stop_reason = reason or self.stop_reason
        elif kind == "message_stop":
            self.stopped = True
            reason = STOP_REASONS.get(self.stop_reason or "end_turn", "stop")
            return StreamChunk(finish_reason=reason, tool_calls=self.calls())
        return None

    def calls(self) -> tuple[NativeToolCall, ...]:
        done = []
        for index in sorted(self.tool_blocks):
            block = self.tool_blocks[index]
            arguments = tool_arguments(block.pieces)
            done.append(NativeToolCall(block.id or f"toolu_{index}", block.name, arguments))
        return tuple(done)


def _blocks(message: ChatMessage) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [
            {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id or "",
                "content": message.content or "(no output)",
            }
        ]
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    blocks += [
        {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
        for c in message.tool_calls
    ]
    return blocks


def wire_messages(messages: Sequence[ChatMessage]) -> tuple[str, list[dict[str, Any]]]:
    """(system text, Messages-API messages): roles alternate, tool results are user blocks."""
    system = "\n\n".join(m.content for m in messages if m.role == "system" and m.content)
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message) or [{"type": "text", "text": "(empty)"}]
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"] += blocks
        else:
            wire.append({"role": role, "content": blocks})
    for item in wire:
        content = item["content"]
        if len(content) == 1 and content[0]["type"] == "text":
            item["content"] = content[0]["text"]
    return system, wire
