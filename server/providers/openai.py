"""Provider `openai`: any OpenAI-compatible `/v1/chat/completions`, streamed over SSE.

Retries with exponential backoff (honouring Retry-After) on 429, 5xx and connection
errors, but only before the first token: once text reached the user, a failure is final.
The API key goes into the Authorization header and nowhere else.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import random
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from actions.tools import Tool
from server.config import Config
from server.providers.base import ChatMessage, NativeToolCall, ProviderError, StreamChunk

log = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 30.0


class _Retry(Exception):
    def __init__(self, status: int | None, detail: str, retry_after: float | None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.retry_after = retry_after


class OpenAIProvider:
    name = "openai"

    def __init__(self, config: Config) -> None:
        self.config = config
        self.url = config.baseUrl.rstrip("/") + "/chat/completions"
        self._client: httpx.AsyncClient | None = None

    def client(self) -> httpx.AsyncClient:
        """One connection pool per provider: building a client costs ~20 ms (TLS context)."""
        if self._client is None:
            timeout = httpx.Timeout(self.config.requestTimeout, connect=self.config.connectTimeout)
            self._client = httpx.AsyncClient(timeout=timeout, trust_env=False)
        return self._client

    def _hint(self, status: int | None) -> str:
        if status in (401, 403):
            return f"check the API key in the environment variable {self.config.apiKeyEnv}"
        if status == 404:
            return f"check agentLs.baseUrl ({self.config.baseUrl}) and agentLs.model"
        if status == 429:
            return "the provider is rate limiting; wait and retry, or raise agentLs.maxRetries"
        if status is not None and status >= 500:
            return f"the server at {self.config.baseUrl} is failing; check it or retry later"
        return f"is an OpenAI-compatible server running at {self.config.baseUrl}?"

    def _error(self, status: int | None, detail: str) -> ProviderError:
        key = self.config.api_key()
        if key:
            detail = detail.replace(key, "***")
        return ProviderError(self.name, status, detail, self._hint(status))

    async def stream_chat(
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
        attempt = 0
        while True:
            started = False
            try:
                async for chunk in self._once(self.client(), body, headers):
                    started = True
                    yield chunk
                return
            except _Retry as retry:
                if started or attempt >= self.config.maxRetries:
                    raise self._error(retry.status, retry.detail) from None
                await asyncio.sleep(self._delay(attempt, retry.retry_after))
                attempt += 1

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, MAX_RETRY_AFTER)
        base: float = self.config.retryBaseDelay * (2**attempt)
        return base * (1 + random.random() / 10)

    async def _once(
        self, client: httpx.AsyncClient, body: dict[str, Any], headers: dict[str, str]
    ) -> AsyncIterator[StreamChunk]:
        try:
            async with client.stream("POST", self.url, json=body, headers=headers) as response:
                if response.status_code != 200:
                    await self._raise_for_status(response)
                async for chunk in self._events(response):
                    yield chunk
        except httpx.TimeoutException as exc:
            raise _Retry(None, f"timed out ({type(exc).__name__})", None) from None
        except httpx.TransportError as exc:
            raise _Retry(None, f"connection failed: {type(exc).__name__}: {exc}", None) from None

    async def _raise_for_status(self, response: httpx.Response) -> None:
        raw = (await response.aread()).decode("utf-8", "replace")
        detail = _error_message(raw) or response.reason_phrase or "error"
        status = response.status_code
        if status in RETRYABLE_STATUS:
            retry_after = _retry_after(response.headers.get("retry-after"))
            if retry_after is not None and retry_after > MAX_RETRY_AFTER:
                raise self._error(status, f"{detail} (Retry-After {retry_after:.0f}s)")
            raise _Retry(status, detail, retry_after)
        raise self._error(status, detail)

    async def _events(self, response: httpx.Response) -> AsyncIterator[StreamChunk]:
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
                raise self._error(response.status_code, _error_message(json.dumps(event)) or "")
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
            raise _Retry(response.status_code, "the stream ended before the reply was done", None)


def _error_message(raw: str) -> str:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        return raw.strip()[:200]
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or error)[:200]
    return str(error or data)[:200]


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())


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
            raw = "".join(call.arguments).strip() or "{}"
            try:
                arguments = json.loads(raw)
            except json.JSONDecodeError:
                arguments = {"_invalid_json": raw}
            if not isinstance(arguments, dict):
                arguments = {"_invalid_json": raw}
            done.append(NativeToolCall(call.id or f"call_{index}", call.name, arguments))
        self.calls.clear()
        return tuple(done)
