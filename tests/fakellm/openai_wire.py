"""OpenAI chat completions: ``POST /v1/chat/completions`` (JSON or SSE) and ``GET /v1/models``.

Stream: ``data: {chat.completion.chunk}`` events; the first chunk carries ``delta.role``,
then ``delta.content`` pieces, then native ``delta.tool_calls`` (the first delta of a call has
``index``, ``id``, ``type``, ``function.name``; later ones carry ``function.arguments``
pieces), a last chunk with ``finish_reason``, an optional usage chunk when the request asked
for ``stream_options.include_usage``, and ``data: [DONE]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.fakellm.script import Reply
from tests.fakellm.wire import Context, Frame, Wire, pieces, reply_tokens, sse

_ERROR_TYPES = {429: "rate_limit_exceeded", 401: "invalid_api_key", 400: "invalid_request_error"}


def finish_reason(reply: Reply) -> str:
    if reply.finish_reason is not None:
        return reply.finish_reason
    return "tool_calls" if reply.tool_calls else "stop"


def _call_id(ctx: Context, index: int) -> str:
    return f"call_{ctx.request_number}_{index}"


def _usage(reply: Reply, ctx: Context) -> dict[str, int]:
    completion = reply_tokens(reply)
    return {
        "prompt_tokens": ctx.prompt_tokens,
        "completion_tokens": completion,
        "total_tokens": ctx.prompt_tokens + completion,
    }


def _envelope(ctx: Context, obj: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-fake{ctx.request_number}",
        "object": obj,
        "created": ctx.created,
        "model": ctx.model,
    }


def complete(reply: Reply, ctx: Context) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": _call_id(ctx, i),
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json},
            }
            for i, call in enumerate(reply.tool_calls)
        ]
    choice = {"index": 0, "message": message, "finish_reason": finish_reason(reply)}
    return {
        **_envelope(ctx, "chat.completion"),
        "choices": [choice],
        "usage": _usage(reply, ctx),
    }


def _chunk(ctx: Context, delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return sse({**_envelope(ctx, "chat.completion.chunk"), "choices": [choice]})


def _tool_frames(reply: Reply, ctx: Context) -> list[Frame]:
    frames: list[Frame] = []
    for i, call in enumerate(reply.tool_calls):
        head = {
            "index": i,
            "id": _call_id(ctx, i),
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        frames.append(Frame(_chunk(ctx, {"tool_calls": [head]})))
        for piece in pieces(call.arguments_json, reply.chunk_size):
            delta = {"tool_calls": [{"index": i, "function": {"arguments": piece}}]}
            frames.append(Frame(_chunk(ctx, delta), content=True))
    return frames


def stream(reply: Reply, ctx: Context) -> list[Frame]:
    frames = [Frame(_chunk(ctx, {"role": "assistant", "content": ""}))]
    frames += [
        Frame(_chunk(ctx, {"content": p}), content=True)
        for p in pieces(reply.content, reply.chunk_size)
    ]
    frames += _tool_frames(reply, ctx)
    frames.append(Frame(_chunk(ctx, {}, finish_reason(reply))))
    if ctx.include_usage:
        usage = {**_envelope(ctx, "chat.completion.chunk"), "choices": []}
        frames.append(Frame(sse({**usage, "usage": _usage(reply, ctx)})))
    frames.append(Frame(sse("[DONE]")))
    return frames


def error_body(status: int, message: str) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(status, "server_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


def models(model: str) -> dict[str, Any]:
    return {
        "object": "list",
        "data": [{"id": model, "object": "model", "created": 0, "owned_by": "fakellm"}],
    }


def _is_stream(body: Mapping[str, Any]) -> bool:
    return body.get("stream") is True


WIRE = Wire(
    name="openai",
    stream_content_type="text/event-stream",
    is_stream=_is_stream,
    complete=complete,
    stream=stream,
    garbage=b"data: {this is not json ]]\n\n",
    error_body=error_body,
    models=models,
)
