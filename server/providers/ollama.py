"""Provider `ollama`: the native API (`POST {baseUrl}/api/chat`), streamed as NDJSON.

Default base URL http://127.0.0.1:11434. With the model left at "default", the first model
`GET /api/tags` lists is used. Native tools are sent as `tools`; a model that does not support
them (Ollama answers 400 "... does not support tools") is asked again without, and the
provider remembers it. Ollama sends each tool call whole, with its arguments as an object.
Retries as for `openai` (see retry.py); `done_reason: "length"` becomes finish "length".
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any, Required

import httpx
from typing_extensions import TypedDict

from actions.tools import Tool
from server.config import Config
from server.providers.base import ChatMessage, NativeToolCall, ProviderError, StreamChunk
from server.providers.defaults import DEFAULT_MODEL_NAME, provider_base_url
from server.providers.events import event_adapter, parse_event
from server.providers.http import HttpStreamProvider

log = logging.getLogger(__name__)


class ToolsUnsupported(Exception):
    """The model refused the request because it cannot use tools."""


class OllamaProvider(HttpStreamProvider):
    name = "ollama"
    wire_format = "Ollama /api/chat NDJSON"

    def __init__(self, config: Config) -> None:
        base = provider_base_url(config, "ollama").rstrip("/")
        for suffix in ("/v1", "/api"):
            base = base.removesuffix(suffix)
        super().__init__(config, base)
        self.url = self.base_url + "/api/chat"
        self.model: str | None = None if config.model == DEFAULT_MODEL_NAME else config.model
        self.tools_supported = True

    def hint(self, status: int | None) -> str:
        if status == 404:
            return f"is the model pulled? run `ollama pull {self.model}` or set agentLs.model"
        if status is None:
            return f"is Ollama running at {self.shown_url}? start it with `ollama serve`"
        if status >= 500 or status == 429:
            return f"the Ollama server at {self.shown_url} is failing or busy; retry later"
        return f"check agentLs.model ({self.model}) and the Ollama server at {self.shown_url}"

    def rejected(self, status: int, detail: str) -> Exception:
        if status == 400 and "does not support tools" in detail:
            return ToolsUnsupported(detail)
        return self.error(status, detail)

    async def stream_chat(
        self, messages: list[ChatMessage], *, tools: Sequence[Tool] | None = None
    ) -> AsyncIterator[StreamChunk]:
        body: dict[str, Any] = {
            "model": self.model or await self._first_model(),
            "messages": wire_messages(messages),
            "stream": True,
            "options": {"num_predict": self.config.maxTokens},
        }
        if tools and self.tools_supported:
            body["tools"] = [{"type": "function", "function": t.to_dict()} for t in tools]
        try:
            async for chunk in self.post_stream(self.url, body, {}):
                yield chunk
            return
        except ToolsUnsupported:
            log.info("ollama: model %s does not support tools; asking without", body["model"])
            self.tools_supported = False
        body.pop("tools", None)
        async for chunk in self.post_stream(self.url, body, {}):
            yield chunk

    async def _first_model(self) -> str:
        """The first model the server lists (used when agentLs.model is not set)."""
        try:
            response = await self.client().get(self.base_url + "/api/tags")
            names = [m.get("name") for m in response.json().get("models") or []]
        except (httpx.HTTPError, ValueError, AttributeError, RecursionError) as exc:
            raise self.error(None, f"could not list the models ({type(exc).__name__})") from None
        names = [n for n in names if isinstance(n, str) and n]
        if not names:
            detail = f"no model is pulled on {self.shown_url}"
            raise ProviderError(self.name, None, detail, "run `ollama pull MODEL`")
        first: str = names[0]
        self.model = first
        return first

    async def events(self, lines: AsyncIterator[str]) -> AsyncIterator[StreamChunk]:
        calls: list[NativeToolCall] = []
        async for line in lines:
            if not line.strip():
                continue
            event = parse_event(EVENT, line, self.name)
            if event is None:
                continue
            if event.get("error"):
                raise self.error(200, str(event.get("error"))[:200])
            message = event.get("message") or {}
            for item in message.get("tool_calls") or []:
                calls.append(_call(item, len(calls)))
            content = message.get("content")
            if content:
                yield StreamChunk(text=content)
            if event.get("done"):
                reason = event.get("done_reason")
                finish = "length" if reason == "length" else "tool_calls" if calls else "stop"
                yield StreamChunk(finish_reason=finish, tool_calls=tuple(calls))
                return
        raise self.ended_early()


class Function(TypedDict, total=False):
    name: str
    arguments: dict[str, Any] | str | None


class ToolCall(TypedDict, total=False):
    id: str | None
    function: Required[Function]


class Message(TypedDict, total=False):
    content: str | None
    tool_calls: list[ToolCall] | None


class Event(TypedDict, total=False):
    """One NDJSON line of `/api/chat`."""

    message: Message | None
    done: bool
    done_reason: str | None
    error: Any


EVENT = event_adapter(Event)


def _call(item: ToolCall, number: int) -> NativeToolCall:
    function = item["function"]
    arguments = function.get("arguments") or {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (json.JSONDecodeError, RecursionError):
            arguments = {"_invalid_json": arguments}
    if not isinstance(arguments, dict):
        arguments = {"_invalid_json": json.dumps(arguments)}
    return NativeToolCall(item.get("id") or f"call_{number}", function.get("name", ""), arguments)


def wire_messages(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """Messages in Ollama's form; a tool result names its tool (`tool_name`)."""
    names = {c.id: c.name for m in messages for c in m.tool_calls}
    wire: list[dict[str, Any]] = []
    for message in messages:
        item: dict[str, Any] = {"role": message.role, "content": message.content}
        if message.tool_calls:
            item["tool_calls"] = [
                {"function": {"name": c.name, "arguments": c.arguments}} for c in message.tool_calls
            ]
        if message.role == "tool" and message.tool_call_id in names:
            item["tool_name"] = names[message.tool_call_id]
        wire.append(item)
    return wire
