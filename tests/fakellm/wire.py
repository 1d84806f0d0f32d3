"""Shared pieces of the three wire protocols: frames, per-request context, helpers.

Each protocol module builds a ``Wire``: plain functions that turn a scripted ``Reply`` into a
complete JSON body or into a list of stream ``Frame``s. The server decides how to send them
(delays, garbage, dropping the connection), so faults behave the same on every protocol.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tests.fakellm.script import Reply


@dataclass(frozen=True)
class Frame:
    """One unit written to a stream; ``content`` marks frames carrying reply text/arguments."""

    data: bytes
    content: bool = False


@dataclass(frozen=True)
class Context:
    """Facts about the request a response needs."""

    model: str
    request_number: int
    prompt_tokens: int
    created: int
    include_usage: bool = False


@dataclass(frozen=True)
class Wire:
    """One wire protocol, as a set of functions (no class per variant)."""

    name: str
    stream_content_type: str
    is_stream: Callable[[Mapping[str, Any]], bool]
    complete: Callable[[Reply, Context], dict[str, Any]]
    stream: Callable[[Reply, Context], list[Frame]]
    garbage: bytes
    error_body: Callable[[int, str], dict[str, Any]]
    models: Callable[[str], dict[str, Any]]
    frame: Callable[[str], bytes] = lambda payload: f"data: {payload}\n\n".encode()


def pieces(text: str, size: int) -> list[str]:
    """Split text into consecutive pieces of ``size`` characters (none for empty text)."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def estimate_tokens(text: str) -> int:
    """A stable, rough token count (4 characters per token) for usage fields."""
    return (len(text) + 3) // 4


def reply_tokens(reply: Reply) -> int:
    return estimate_tokens(reply.content) + sum(
        estimate_tokens(t.arguments_json) for t in reply.tool_calls
    )


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event; ``data`` is JSON-encoded unless it is already a string."""
    text = data if isinstance(data, str) else dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


def ndjson(data: Any) -> bytes:
    return (dumps(data) + "\n").encode()
