"""Each wire protocol, streamed and not, as a provider client would read it."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.fakellm import FakeLLM
from tests.unit.fakellm._client import PROTOCOLS, arguments, post, stream_chat

TOOL = {"name": "write_file", "arguments": {"path": "src/a.py", "content": "print('hé')\n"}}


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_streamed_text_arrives_in_pieces_and_reassembles(llm: FakeLLM, protocol: str) -> None:
    llm.set_script({"replies": [{"content": "Hello, streaming world!", "chunk_size": 5}]})
    out, error = stream_chat(llm, protocol)
    assert error is None
    assert out.content == "Hello, streaming world!"
    assert out.pieces == ["Hello", ", str", "eamin", "g wor", "ld!"]
    assert out.done
    assert out.finish == {"openai": "stop", "anthropic": "end_turn", "ollama": "stop"}[protocol]
    assert out.garbage == []


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_streamed_tool_calls_are_native(llm: FakeLLM, protocol: str) -> None:
    llm.set_script({"replies": [{"content": "Writing.", "tool_calls": [TOOL, TOOL]}]})
    out, error = stream_chat(llm, protocol)
    assert error is None
    assert out.content == "Writing."
    assert [c["name"] for c in out.tool_calls] == ["write_file", "write_file"]
    assert [arguments(c) for c in out.tool_calls] == [TOOL["arguments"]] * 2
    expected = {"openai": "tool_calls", "anthropic": "tool_use", "ollama": "stop"}
    assert out.finish == expected[protocol]


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
def test_tool_arguments_stream_in_several_pieces_with_distinct_ids(
    llm: FakeLLM, protocol: str
) -> None:
    llm.set_script({"replies": [{"tool_calls": [TOOL, TOOL], "chunk_size": 7}]})
    out, _ = stream_chat(llm, protocol)
    assert out.content == ""
    assert len(out.pieces) > 2
    assert len({c["id"] for c in out.tool_calls}) == 2


def test_openai_stream_shape(llm: FakeLLM) -> None:
    llm.set_script({"replies": ["Hi there"]})
    out, _ = stream_chat(llm, "openai")
    first, last = out.events[0], out.events[-1]
    assert first["object"] == "chat.completion.chunk"
    assert first["choices"][0]["delta"]["role"] == "assistant"
    assert all("role" not in e["choices"][0]["delta"] for e in out.events[1:])
    assert last["choices"][0] == {"index": 0, "delta": {}, "finish_reason": "stop"}
    assert all(e["choices"][0]["finish_reason"] is None for e in out.events[:-1])


def test_openai_usage_chunk_when_asked(llm: FakeLLM) -> None:
    llm.set_script({"replies": ["Hi there"]})
    body = {"model": "m", "messages": [], "stream": True, "stream_options": {"include_usage": True}}
    with httpx.stream("POST", llm.base_url_openai + "/chat/completions", json=body) as r:
        data = [line[6:] for line in r.iter_lines() if line.startswith("data: ")]
    assert data[-1] == "[DONE]"
    usage_chunk = json.loads(data[-2])
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"]["completion_tokens"] > 0


def test_anthropic_stream_event_order(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": "ok", "tool_calls": [TOOL]}]})
    out, _ = stream_chat(llm, "anthropic")
    kinds = [e["type"] for e in out.events]
    assert kinds[0] == "message_start"
    assert kinds[-2:] == ["message_delta", "message_stop"]
    starts = [e for e in out.events if e["type"] == "content_block_start"]
    assert [s["content_block"]["type"] for s in starts] == ["text", "tool_use"]
    assert [s["index"] for s in starts] == [0, 1]
    assert kinds.count("content_block_stop") == 2


def test_ollama_streams_by_default(llm: FakeLLM) -> None:
    llm.set_script({"replies": ["streamed"]})
    body = {"model": "llama", "messages": [{"role": "user", "content": "hi"}]}
    response = httpx.post(llm.url + "/api/chat", json=body)
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert response.headers["content-type"] == "application/x-ndjson"
    assert len(lines) > 2
    assert [line["done"] for line in lines] == [False] * (len(lines) - 1) + [True]
    assert all(line["model"] == "llama" for line in lines)
    assert "".join(line["message"]["content"] for line in lines) == "streamed"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_truncated_reply_reports_length(llm: FakeLLM, protocol: str) -> None:
    llm.set_script({"replies": [{"content": "cut", "finish_reason": "length"}]})
    out, _ = stream_chat(llm, protocol)
    assert (
        out.finish == {"openai": "length", "anthropic": "max_tokens", "ollama": "length"}[protocol]
    )
    body = post(llm, protocol, stream=False).json()
    finish = {"openai": "finish_reason", "anthropic": "stop_reason", "ollama": "done_reason"}
    where = body["choices"][0] if protocol == "openai" else body
    assert where[finish[protocol]] == out.finish


def test_openai_non_stream(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": "Done.", "tool_calls": [TOOL]}]})
    body = post(llm, "openai", stream=False).json()
    assert body["object"] == "chat.completion"
    message = body["choices"][0]["message"]
    assert message["content"] == "Done."
    call = message["tool_calls"][0]
    assert call["type"] == "function"
    assert call["function"]["name"] == "write_file"
    assert json.loads(call["function"]["arguments"]) == TOOL["arguments"]
    assert body["choices"][0]["finish_reason"] == "tool_calls"


def test_anthropic_non_stream(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": "Done.", "tool_calls": [TOOL]}]})
    body = post(llm, "anthropic", stream=False).json()
    assert body["type"] == "message"
    assert body["content"][0] == {"type": "text", "text": "Done."}
    assert body["content"][1]["type"] == "tool_use"
    assert body["content"][1]["input"] == TOOL["arguments"]
    assert body["stop_reason"] == "tool_use"


def test_ollama_non_stream(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": "Done.", "tool_calls": [TOOL]}]})
    body = post(llm, "ollama", stream=False).json()
    assert body["done"] is True
    assert body["done_reason"] == "stop"
    assert body["message"]["content"] == "Done."
    assert body["message"]["tool_calls"] == [{"function": TOOL}]


def test_model_listings(llm: FakeLLM) -> None:
    llm.set_script({"model": "tiny-coder", "default": "x"})
    models = httpx.get(llm.base_url_openai + "/models").json()
    tags = httpx.get(llm.url + "/api/tags").json()
    assert [m["id"] for m in models["data"]] == ["tiny-coder"]
    assert [m["name"] for m in tags["models"]] == ["tiny-coder"]


def test_unknown_route_is_404_and_recorded(llm: FakeLLM) -> None:
    response = httpx.post(llm.url + "/v1/completions", json={"prompt": "x"})
    assert response.status_code == 404
    assert llm.requests[-1].path == "/v1/completions"
