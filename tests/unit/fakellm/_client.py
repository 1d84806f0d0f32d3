"""Minimal decoders of the three wire protocols, used to check what the fake LLM sends.

They read the raw HTTP stream with httpx, as a provider client would, and keep anything
that is not valid JSON in ``garbage`` instead of failing, so fault tests can inspect it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.fakellm import FakeLLM

PROTOCOLS = ("openai", "anthropic", "ollama")
CHAT_PATHS = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages", "ollama": "/api/chat"}
# One client for the whole run: creating one per request costs ~40 ms (its SSL context).
HTTP = httpx.Client(timeout=10)


@dataclass
class Decoded:
    """What a client reassembled from one response."""

    content: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish: str | None = None
    done: bool = False
    events: list[Any] = field(default_factory=list)
    garbage: list[str] = field(default_factory=list)
    pieces: list[str] = field(default_factory=list)


def request_body(protocol: str, text: str, stream: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": text}]}
    if protocol == "anthropic":
        body["max_tokens"] = 100
    body["stream"] = stream
    return body


def post(llm: FakeLLM, protocol: str, text: str = "hi", stream: bool = True) -> httpx.Response:
    url = llm.url + CHAT_PATHS[protocol]
    return HTTP.post(url, json=request_body(protocol, text, stream))


def _loads(text: str, out: Decoded) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        out.garbage.append(text)
        return None


def _openai_line(obj: dict[str, Any], out: Decoded) -> None:
    for choice in obj.get("choices", []):
        delta = choice["delta"]
        if delta.get("content"):
            out.content += delta["content"]
            out.pieces.append(delta["content"])
        for call in delta.get("tool_calls", []):
            if call["index"] == len(out.tool_calls):
                fn = call["function"]
                out.tool_calls.append({"id": call["id"], "name": fn["name"], "arguments": ""})
            piece = call["function"].get("arguments", "")
            out.tool_calls[call["index"]]["arguments"] += piece
            if piece:
                out.pieces.append(piece)
        out.finish = choice.get("finish_reason") or out.finish


def decode_openai(lines: list[str], out: Decoded) -> None:
    for line in lines:
        if not line.startswith("data: "):
            continue
        data = line[len("data: ") :]
        if data == "[DONE]":
            out.done = True
            continue
        obj = _loads(data, out)
        if obj is not None:
            out.events.append(obj)
            _openai_line(obj, out)


def _anthropic_event(obj: dict[str, Any], out: Decoded) -> None:
    kind = obj["type"]
    if kind == "content_block_start" and obj["content_block"]["type"] == "tool_use":
        block = obj["content_block"]
        out.tool_calls.append({"id": block["id"], "name": block["name"], "arguments": ""})
    elif kind == "content_block_delta":
        delta = obj["delta"]
        if delta["type"] == "text_delta":
            out.content += delta["text"]
            out.pieces.append(delta["text"])
        else:
            out.tool_calls[-1]["arguments"] += delta["partial_json"]
            out.pieces.append(delta["partial_json"])
    elif kind == "message_delta":
        out.finish = obj["delta"]["stop_reason"]
    elif kind == "message_stop":
        out.done = True


def decode_anthropic(lines: list[str], out: Decoded) -> None:
    event = None
    for line in lines:
        if line.startswith("event: "):
            event = line[len("event: ") :]
        elif line.startswith("data: "):
            obj = _loads(line[len("data: ") :], out)
            if obj is not None:
                assert obj["type"] == event, "the event: line names the data's type"
                out.events.append(obj)
                _anthropic_event(obj, out)


def decode_ollama(lines: list[str], out: Decoded) -> None:
    for line in lines:
        if not line:
            continue
        obj = _loads(line, out)
        if obj is None:
            continue
        out.events.append(obj)
        message = obj["message"]
        if message["content"]:
            out.content += message["content"]
            out.pieces.append(message["content"])
        for call in message.get("tool_calls", []):
            fn = call["function"]
            out.tool_calls.append({"name": fn["name"], "arguments": json.dumps(fn["arguments"])})
        if obj["done"]:
            out.done = True
            out.finish = obj["done_reason"]


DECODERS = {"openai": decode_openai, "anthropic": decode_anthropic, "ollama": decode_ollama}


def stream_chat(
    llm: FakeLLM, protocol: str, text: str = "hi", timeout: float = 10
) -> tuple[Decoded, Exception | None]:
    """Stream one chat request; return what was decoded and the transport error, if any."""
    out = Decoded()
    lines: list[str] = []
    error: Exception | None = None
    url = llm.url + CHAT_PATHS[protocol]
    try:
        body = request_body(protocol, text, True)
        with HTTP.stream("POST", url, json=body, timeout=timeout) as response:
            response.raise_for_status()
            for line in response.iter_lines():
                lines.append(line)
    except httpx.TransportError as exc:
        error = exc
    DECODERS[protocol](lines, out)
    return out, error


def arguments(call: dict[str, Any]) -> Any:
    return json.loads(call["arguments"])
