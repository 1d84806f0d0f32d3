"""Ollama native API: ``POST /api/chat`` (NDJSON stream by default, JSON with
``"stream": false``) and ``GET /api/tags``.

Stream lines: ``{"model", "created_at", "message": {"role": "assistant", "content": piece},
"done": false}``; tool calls come whole in one line as ``message.tool_calls:
[{"function": {"name", "arguments": {...}}}]`` (as Ollama sends them); the last line has
``"done": true``, ``done_reason`` ("stop" or "length") and the timing/count fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from tests.fakellm.script import Reply
from tests.fakellm.wire import Context, Frame, Wire, ndjson, pieces, reply_tokens


def _created_at(ctx: Context) -> str:
    return datetime.fromtimestamp(ctx.created, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _tool_calls(reply: Reply) -> list[dict[str, Any]]:
    return [{"function": {"name": c.name, "arguments": c.arguments}} for c in reply.tool_calls]


def _line(ctx: Context, message: dict[str, Any], done: bool) -> dict[str, Any]:
    return {
        "model": ctx.model,
        "created_at": _created_at(ctx),
        "message": {"role": "assistant", **message},
        "done": done,
    }


def _final_fields(reply: Reply, ctx: Context) -> dict[str, Any]:
    return {
        "done_reason": "length" if reply.truncated else "stop",
        "total_duration": 1_000_000,
        "load_duration": 0,
        "prompt_eval_count": ctx.prompt_tokens,
        "prompt_eval_duration": 500_000,
        "eval_count": reply_tokens(reply),
        "eval_duration": 500_000,
    }


def complete(reply: Reply, ctx: Context) -> dict[str, Any]:
    message: dict[str, Any] = {"content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = _tool_calls(reply)
    return {**_line(ctx, message, True), **_final_fields(reply, ctx)}


def stream(reply: Reply, ctx: Context) -> list[Frame]:
    frames = [
        Frame(ndjson(_line(ctx, {"content": p}, False)), content=True)
        for p in pieces(reply.content, reply.chunk_size)
    ]
    if reply.tool_calls:
        message = {"content": "", "tool_calls": _tool_calls(reply)}
        frames.append(Frame(ndjson(_line(ctx, message, False)), content=True))
    final = {**_line(ctx, {"content": ""}, True), **_final_fields(reply, ctx)}
    frames.append(Frame(ndjson(final)))
    return frames


def error_body(status: int, message: str) -> dict[str, Any]:
    return {"error": message}


def models(model: str) -> dict[str, Any]:
    details = {"format": "gguf", "family": "fake", "parameter_size": "0B"}
    entry = {
        "name": model,
        "model": model,
        "modified_at": "2025-01-01T00:00:00Z",
        "size": 0,
        "digest": "0" * 64,
        "details": details,
    }
    return {"models": [entry]}


def _is_stream(body: Mapping[str, Any]) -> bool:
    return body.get("stream", True) is not False


WIRE = Wire(
    name="ollama",
    stream_content_type="application/x-ndjson",
    is_stream=_is_stream,
    complete=complete,
    stream=stream,
    garbage=b'{"model": not json at all\n',
    error_body=error_body,
    models=models,
    frame=lambda payload: (payload + "\n").encode(),
)
