"""`anthropic` against the fake LLM's Messages API over a real socket."""

from __future__ import annotations

import asyncio

import pytest

from server.config import Config
from server.providers.anthropic import AnthropicProvider, wire_messages
from server.providers.base import ChatMessage, NativeToolCall, ProviderError, StreamChunk
from tests.fakellm import FakeLLM
from tests.unit.providers.conftest import READ_FILE, ask, collect

SECRET = "sk-ant-test-41d7c2"


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_LS_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)


def provider(llm: FakeLLM, **settings: object) -> AnthropicProvider:
    values: dict[str, object] = {
        "provider": "anthropic",
        "baseUrl": llm.url,
        "model": "claude-test",
        "retryBaseDelay": 0.01,
        "maxRetries": 2,
        "maxTokens": 321,
    }
    return AnthropicProvider(Config(**{**values, **settings}))  # type: ignore[arg-type]


async def test_streams_text_and_sends_the_messages_api_request(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": "Bonjour, le monde!", "chunk_size": 3}]})
    reply = await collect(provider(llm), ask("Say hello"))
    assert reply.text == "Bonjour, le monde!"
    assert len([c for c in reply.chunks if c.text]) == 6  # streamed, not one block
    assert reply.finish_reason == "stop"
    (request,) = llm.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == SECRET
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.body["system"] == "You are terse."
    assert request.body["messages"] == [{"role": "user", "content": "Say hello"}]
    assert request.body["max_tokens"] == 321
    assert request.body["model"] == "claude-test"
    assert request.body["stream"] is True


async def test_tool_use_blocks_become_assembled_native_calls(llm: FakeLLM) -> None:
    arguments = {"path": "src/app.py", "note": 'ünïcode "quoted"'}
    call = {"name": "read_file", "arguments": arguments}
    reply_spec = {"content": "Let me look.", "tool_calls": [call], "chunk_size": 5}
    llm.set_script({"replies": [reply_spec]})
    reply = await collect(provider(llm), ask("Open app.py"), tools=[READ_FILE])
    assert reply.text == "Let me look."
    assert reply.finish_reason == "tool_calls"
    (native,) = reply.tool_calls
    assert (native.name, native.arguments) == ("read_file", arguments)
    assert native.id.startswith("toolu_")
    (tool,) = llm.requests[0].body["tools"]
    assert tool == {
        "name": "read_file",
        "description": READ_FILE.description,
        "input_schema": READ_FILE.parameters,
    }


async def test_prior_calls_and_results_travel_as_tool_use_and_tool_result(llm: FakeLLM) -> None:
    calls = (
        NativeToolCall("toolu_1", "read_file", {"path": "a.py"}),
        NativeToolCall("toolu_2", "read_file", {"path": "b.py"}),
    )
    messages = [
        *ask("Compare a.py and b.py"),
        ChatMessage("assistant", "Reading both.", tool_calls=calls),
        ChatMessage("tool", "print('a')", tool_call_id="toolu_1"),
        ChatMessage("tool", "print('b')", tool_call_id="toolu_2"),
    ]
    llm.set_script({"replies": ["They differ in one letter."]})
    reply = await collect(provider(llm), messages, tools=[READ_FILE])
    assert reply.text == "They differ in one letter."
    wire = llm.requests[0].body["messages"]
    assert [m["role"] for m in wire] == ["user", "assistant", "user"]
    assert wire[1]["content"] == [
        {"type": "text", "text": "Reading both."},
        {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.py"}},
        {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {"path": "b.py"}},
    ]
    assert wire[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "print('a')"},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "print('b')"},
    ]


def test_consecutive_user_messages_are_merged_and_empty_ones_filled() -> None:
    system, wire = wire_messages(
        [ChatMessage("user", "one"), ChatMessage("user", "two"), ChatMessage("assistant", "")]
    )
    assert system == ""
    assert wire[0] == {
        "role": "user",
        "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}],
    }
    assert wire[1] == {"role": "assistant", "content": "(empty)"}


async def test_max_tokens_stop_is_reported_as_length(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": '{"action": "text_resp', "finish_reason": "length"}]})
    reply = await collect(provider(llm), ask("Long answer"))
    assert reply.finish_reason == "length"


async def test_429_with_retry_after_then_success_is_retried(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"fault": "429", "retry_after": 0}, "Recovered."]})
    reply = await collect(provider(llm), ask("hello"))
    assert reply.text == "Recovered."
    assert len(llm.requests) == 2


async def test_overloaded_529_is_retried(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"status": 529}, "Back."]})
    assert (await collect(provider(llm), ask("hello"))).text == "Back."
    assert len(llm.requests) == 2


async def test_500_forever_fails_after_the_retries_with_a_hint(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"fault": "500"}]})
    with pytest.raises(ProviderError) as failure:
        await collect(provider(llm), ask("hello"))
    assert failure.value.status == 500
    assert "anthropic" in str(failure.value)
    assert "Hint:" in str(failure.value)
    assert len(llm.requests) == 3  # first try + maxRetries=2


async def test_401_is_not_retried_and_names_the_key_variable(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"status": 401}]})
    with pytest.raises(ProviderError) as failure:
        await collect(provider(llm), ask("hello"))
    assert failure.value.status == 401
    assert "ANTHROPIC_API_KEY" in failure.value.hint
    assert SECRET not in str(failure.value)
    assert len(llm.requests) == 1


async def test_a_stream_dropped_after_text_is_a_final_error(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": "partial answer here", "fault": "drop_mid_stream"}]})
    chunks: list[StreamChunk] = []

    async def consume() -> None:
        async for chunk in provider(llm).stream_chat(ask("hello")):
            chunks.append(chunk)

    with pytest.raises(ProviderError):
        await consume()
    assert chunks
    assert "".join(c.text for c in chunks) != "partial answer here"
    assert len(llm.requests) == 1  # text reached the user: no retry


async def test_garbage_between_events_is_skipped(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": "clean text survives", "fault": "malformed_sse"}]})
    assert (await collect(provider(llm), ask("hello"))).text == "clean text survives"


async def test_unreachable_server_is_retried_then_names_the_url() -> None:
    config = Config(provider="anthropic", baseUrl="http://127.0.0.1:9", retryBaseDelay=0.01)
    with pytest.raises(ProviderError) as failure:
        await collect(AnthropicProvider(config), ask("hello"))
    assert "127.0.0.1:9" in str(failure.value)


async def test_cancelling_a_stream_leaves_the_provider_usable(llm: FakeLLM) -> None:
    slow = {"content": "x" * 400, "chunk_size": 2, "delay_ms": 20}
    llm.set_script({"replies": [slow, "Next answer."]})
    anthropic = provider(llm)
    first_chunk = asyncio.Event()

    async def consume() -> None:
        async for _ in anthropic.stream_chat(ask("slow")):
            first_chunk.set()

    task = asyncio.ensure_future(consume())
    await first_chunk.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (await collect(anthropic, ask("again"))).text == "Next answer."


def test_the_key_variable_named_by_api_key_env_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    from server.providers.anthropic import anthropic_key

    env = {"ANTHROPIC_API_KEY": "a", "MY_KEY": "m", "AGENT_LS_API_KEY": "g"}
    assert anthropic_key(Config(apiKeyEnv="MY_KEY"), env) == "m"
    assert anthropic_key(Config(), env) == "a"
    assert anthropic_key(Config(), {"AGENT_LS_API_KEY": "g"}) == "g"
    assert anthropic_key(Config(), {}) is None


def test_default_base_url_and_model_are_anthropics() -> None:
    default = AnthropicProvider(Config(provider="anthropic"))
    assert default.url == "https://api.anthropic.com/v1/messages"
    assert default.model.startswith("claude-")
    custom = AnthropicProvider(Config(provider="anthropic", baseUrl="http://h:1/v1/"))
    assert custom.url == "http://h:1/v1/messages"
