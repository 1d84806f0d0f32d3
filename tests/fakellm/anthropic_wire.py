"""Anthropic Messages: ``POST /v1/messages`` (JSON or SSE with ``event:`` + ``data:`` lines).

Stream: message_start, ping, then per block content_block_start (text or tool_use),
content_block_delta (text_delta / input_json_delta with ``partial_json`` pieces),
content_block_stop; then message_delta (stop_reason end_turn | tool_use | max_tokens) and
message_stop. A text block is sent when there is content or when there are no tool calls.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tests.fakellm.script import Reply
from tests.fakellm.wire import Context, Frame, Wire, pieces, reply_tokens, sse

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_error",
    503: "overloaded_error",
    529: "overloaded_error",
}


def stop_reason(reply: Reply) -> str:
    if reply.finish_reason == "length":
        return "max_tokens"
    if reply.finish_reason == "stop":
        return "end_turn"
    return "tool_use" if reply.tool_calls else "end_turn"


def _tool_id(ctx: Context, index: int) -> str:
    return f"toolu_fake{ctx.request_number}_{index}"


def _has_text_block(reply: Reply) -> bool:
    return bool(reply.content) or not reply.tool_calls


def _message(reply: Reply, ctx: Context, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": f"msg_fake{ctx.request_number}",
        "type": "message",
        "role": "assistant",
        "model": ctx.model,
        "content": content,
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": ctx.prompt_tokens, "output_tokens": reply_tokens(reply)},
    }


def complete(reply: Reply, ctx: Context) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if _has_text_block(reply):
        content.append({"type": "text", "text": reply.content})
    content += [
        {"type": "tool_use", "id": _tool_id(ctx, i), "name": call.name, "input": call.arguments}
        for i, call in enumerate(reply.tool_calls)
    ]
    message = _message(reply, ctx, content)
    message["stop_reason"] = stop_reason(reply)
    return message


def _event(kind: str, **fields: Any) -> bytes:
    return sse({"type": kind, **fields}, event=kind)


def _block(index: int, start: dict[str, Any], deltas: list[dict[str, Any]]) -> list[Frame]:
    frames = [Frame(_event("content_block_start", index=index, content_block=start))]
    frames += [
        Frame(_event("content_block_delta", index=index, delta=d), content=True) for d in deltas
    ]
    frames.append(Frame(_event("content_block_stop", index=index)))
    return frames


def stream(reply: Reply, ctx: Context) -> list[Frame]:
    start = _message(reply, ctx, [])
    start["usage"] = {"input_tokens": ctx.prompt_tokens, "output_tokens": 1}
    frames = [Frame(_event("message_start", message=start)), Frame(_event("ping"))]
    index = 0
    if _has_text_block(reply):
        deltas = [
            {"type": "text_delta", "text": p} for p in pieces(reply.content, reply.chunk_size)
        ]
        frames += _block(index, {"type": "text", "text": ""}, deltas)
        index += 1
    for i, call in enumerate(reply.tool_calls):
        head = {"type": "tool_use", "id": _tool_id(ctx, i), "name": call.name, "input": {}}
        deltas = [
            {"type": "input_json_delta", "partial_json": p}
            for p in pieces(call.arguments_json, reply.chunk_size)
        ]
        frames += _block(index, head, deltas)
        index += 1
    delta = {"stop_reason": stop_reason(reply), "stop_sequence": None}
    usage = {"output_tokens": reply_tokens(reply)}
    frames.append(Frame(_event("message_delta", delta=delta, usage=usage)))
    frames.append(Frame(_event("message_stop")))
    return frames


def error_body(status: int, message: str) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def models(model: str) -> dict[str, Any]:
    return {"data": [{"type": "model", "id": model, "display_name": model}], "has_more": False}


def _is_stream(body: Mapping[str, Any]) -> bool:
    return body.get("stream") is True


def frame(payload: str) -> bytes:
    """A scripted event, with the `event:` line naming its type when it has one."""
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        data = None
    kind = data.get("type") if isinstance(data, dict) else None
    return sse(payload, event=kind if isinstance(kind, str) else None)


WIRE = Wire(
    name="anthropic",
    stream_content_type="text/event-stream",
    is_stream=_is_stream,
    complete=complete,
    stream=stream,
    garbage=b"event: content_block_delta\ndata: {broken json\n\n",
    error_body=error_body,
    models=models,
    frame=frame,
)
