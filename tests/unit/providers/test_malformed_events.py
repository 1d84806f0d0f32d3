"""Malformed stream events, served by the fake LLM over a real socket, become a ProviderError
that names the provider and the bad field (no crash, no retry, no server internals); a
connection reset mid-reply says what happened."""

from __future__ import annotations

from typing import Any

import pytest

from server.config import Config
from server.providers import make_provider
from server.providers.base import Provider, ProviderError, StreamChunk
from tests.fakellm import FakeLLM
from tests.unit.providers.conftest import ask

DEEP = 5000  # far past any parser's nesting limit


def deep(key: str) -> str:
    return "{" + f'"{key}": ' + "[" * DEEP + "]" * DEEP + "}"


def openai_text(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


def tool_piece(piece: dict[str, Any]) -> dict[str, Any]:
    return {"choices": [{"delta": {"tool_calls": [piece]}}]}


OPENAI = {
    "content-number": ({"choices": [{"delta": {"content": 5}}]}, "choices.0.delta.content"),
    "choices-string": ({"choices": "x"}, "choices"),
    "delta-string": ({"choices": [{"delta": "x"}]}, "choices.0.delta"),
    "tool_calls-string": ({"choices": [{"delta": {"tool_calls": "x"}}]}, "delta.tool_calls"),
    "index-letter": (tool_piece({"index": "a"}), "choices.0.delta.tool_calls.0.index"),
    "arguments-object": (tool_piece({"function": {"arguments": {}}}), "function.arguments"),
    "finish-number": ({"choices": [{"delta": {}, "finish_reason": 7}]}, "finish_reason"),
    "event-list": ([1, 2], "the event"),
    "deeply-nested": (deep("choices"), "nested too deeply"),
}
ANTHROPIC = {
    "text-number": (
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}},
        "delta.text",
    ),
    "delta-string": ({"type": "content_block_delta", "index": 0, "delta": "x"}, "delta"),
    "index-letter": ({"type": "content_block_delta", "index": "a", "delta": {}}, "index"),
    "block-string": ({"type": "content_block_start", "content_block": "x"}, "content_block"),
    "type-number": ({"type": 5}, "type"),
    "deeply-nested": (deep("delta"), "nested too deeply"),
}
OLLAMA = {
    "content-number": ({"message": {"content": 5}, "done": False}, "message.content"),
    "message-string": ({"message": "x", "done": False}, "message"),
    "tool_calls-string": ({"message": {"tool_calls": "x"}}, "message.tool_calls"),
    "function-string": ({"message": {"tool_calls": [{"function": "x"}]}}, "function"),
    "done-string": ({"message": {"content": "a"}, "done": "maybe"}, "done"),
    "deeply-nested": (deep("message"), "nested too deeply"),
}
CASES = [
    pytest.param(protocol, event, field, id=f"{protocol}-{name}")
    for protocol, table in (("openai", OPENAI), ("anthropic", ANTHROPIC), ("ollama", OLLAMA))
    for name, (event, field) in table.items()
]
FIRST_TEXT = {
    "openai": openai_text("Hello"),
    "anthropic": {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": "Hello"},
    },
    "ollama": {"message": {"role": "assistant", "content": "Hello"}, "done": False},
}


def provider_for(llm: FakeLLM, name: str) -> Provider:
    base = llm.base_url_openai if name == "openai" else llm.url
    config = Config(provider=name, baseUrl=base, model="m", retryBaseDelay=0.01, maxRetries=2)
    return make_provider(config)


async def consume(provider: Provider, chunks: list[StreamChunk]) -> None:
    async for chunk in provider.stream_chat(ask("hi")):
        chunks.append(chunk)


@pytest.mark.parametrize(("protocol", "event", "field"), CASES)
@pytest.mark.parametrize("after_text", [False, True], ids=["first", "after-text"])
async def test_a_malformed_event_names_the_provider_and_the_field(
    llm: FakeLLM, protocol: str, event: Any, field: str, after_text: bool
) -> None:
    events = [FIRST_TEXT[protocol], event] if after_text else [event]
    llm.set_script({"replies": [{"events": events}]})
    chunks: list[StreamChunk] = []
    with pytest.raises(ProviderError) as failure:
        await consume(provider_for(llm, protocol), chunks)
    message = str(failure.value)
    assert failure.value.provider == protocol
    assert message.startswith(f"provider {protocol} failed (HTTP 200): malformed stream event")
    assert field in message
    assert "does not speak the" in failure.value.hint
    assert "Traceback" not in message
    assert "pydantic" not in message.lower()
    assert len(message) < 400
    assert "".join(c.text for c in chunks) == ("Hello" if after_text else "")
    assert len(llm.requests) == 1  # a format error is not retried


@pytest.mark.parametrize("protocol", ["openai", "anthropic", "ollama"])
async def test_a_reset_mid_reply_says_the_server_closed_the_connection(
    llm: FakeLLM, protocol: str
) -> None:
    reset = {"content": "a partial answer that is long enough", "fault": "reset_mid_stream"}
    llm.set_script({"replies": [reset]})
    chunks: list[StreamChunk] = []
    with pytest.raises(ProviderError) as failure:
        await consume(provider_for(llm, protocol), chunks)
    assert chunks  # text reached the caller: the failure is final
    assert "closed the connection in the middle of the reply" in failure.value.detail
    assert "dropped the reply" in failure.value.hint
    assert "is an OpenAI-compatible server running" not in failure.value.hint
    assert ": ." not in str(failure.value)
    assert len(llm.requests) == 1


async def test_garbage_lines_are_still_skipped(llm: FakeLLM) -> None:
    events = [openai_text("A"), "not json at all", openai_text("B")]
    events.append({"choices": [{"delta": {}, "finish_reason": "stop"}]})
    llm.set_script({"replies": [{"events": [*events, "[DONE]"]}]})
    chunks: list[StreamChunk] = []
    await consume(provider_for(llm, "openai"), chunks)
    assert "".join(c.text for c in chunks) == "AB"
