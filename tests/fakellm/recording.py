"""What the fake LLM received: one typed record per request, and a waitable log of them.

Header names are stored lower-cased (HTTP header names are case-insensitive), values as
received, so tests can assert that an API key was sent. Secret headers are redacted from
``repr`` so a failing assertion never prints a key.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "proxy-authorization"})


@dataclass(frozen=True, repr=False)
class RecordedRequest:
    """One HTTP request as the server saw it (``body`` is the parsed JSON, or None)."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: Any
    protocol: str
    time: float

    def __repr__(self) -> str:
        return (
            f"RecordedRequest(method={self.method!r}, path={self.path!r}, "
            f"protocol={self.protocol!r}, headers={redacted(self.headers)!r}, "
            f"body={self.body!r})"
        )

    @property
    def user_message(self) -> str:
        return last_user_message(self)

    def to_json(self) -> dict[str, Any]:
        """The JSON form served by ``GET /_control/requests`` (headers included, unredacted)."""
        return {
            "method": self.method,
            "path": self.path,
            "query": self.query,
            "headers": dict(self.headers),
            "body": self.body,
            "protocol": self.protocol,
            "time": self.time,
        }


def redacted(headers: Mapping[str, str]) -> dict[str, str]:
    return {k: ("<redacted>" if k.lower() in SECRET_HEADERS else v) for k, v in headers.items()}


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if not isinstance(part, Mapping):
        return ""
    if isinstance(part.get("text"), str):
        return str(part["text"])
    if part.get("type") == "tool_result":
        return _content_text(part.get("content"))
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in (_part_text(p) for p in content) if t)
    return ""


def last_user_message(request: RecordedRequest | Mapping[str, Any]) -> str:
    """Text of the last message with role "user" in a chat request body ("" if none).

    Accepts a RecordedRequest or a body dict. String content is taken as is; a list of parts
    (OpenAI / Anthropic) gives its text parts and tool_result texts joined with newlines.
    """
    body = request.body if isinstance(request, RecordedRequest) else request
    if not isinstance(body, Mapping):
        return ""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return ""
    for message in reversed(messages):
        if isinstance(message, Mapping) and message.get("role") == "user":
            return _content_text(message.get("content"))
    return ""


class RequestLog:
    """Thread-safe list of recorded requests that tests can wait on without sleeping."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._items: list[RecordedRequest] = []

    def append(self, request: RecordedRequest) -> None:
        with self._cond:
            self._items.append(request)
            self._cond.notify_all()

    def clear(self) -> None:
        with self._cond:
            self._items.clear()

    def snapshot(self) -> list[RecordedRequest]:
        with self._cond:
            return list(self._items)

    def wait_for(self, count: int, timeout: float) -> list[RecordedRequest]:
        """Block until at least ``count`` requests were recorded; TimeoutError otherwise."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self._items) >= count, timeout):
                raise TimeoutError(
                    f"fakellm: waited {timeout}s for {count} requests, got {len(self._items)}"
                )
            return list(self._items)
