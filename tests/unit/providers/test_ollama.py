"""`ollama` against the fake LLM's native API (NDJSON) over a real socket."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from server.config import Config
from server.providers.base import ChatMessage, NativeToolCall, ProviderError
from server.providers.ollama import OllamaProvider
from tests.fakellm import FakeLLM
from tests.unit.providers.conftest import READ_FILE, ask, collect


def provider(url: str, **settings: object) -> OllamaProvider:
    values: dict[str, object] = {
        "provider": "ollama",
        "baseUrl": url,
        "model": "qwen-test",
        "retryBaseDelay": 0.01,
        "maxRetries": 2,
        "maxTokens": 77,
    }
    return OllamaProvider(Config(**{**values, **settings}))  # type: ignore[arg-type]


async def test_streams_ndjson_text_and_sends_the_native_request(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": "Hallo aus Ollama.", "chunk_size": 4}]})
    reply = await collect(provider(llm.url), ask("Say hello"))
    assert reply.text == "Hallo aus Ollama."
    assert len([c for c in reply.chunks if c.text]) == 5
    assert reply.finish_reason == "stop"
    (request,) = llm.requests
    assert request.path == "/api/chat"
    assert request.body["model"] == "qwen-test"
    assert request.body["stream"] is True
    assert request.body["options"] == {"num_predict": 77}
    assert request.body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Say hello"},
    ]


async def test_tool_calls_come_back_as_native_calls(llm: FakeLLM) -> None:
    calls = [
        {"name": "read_file", "arguments": {"path": "a.py"}},
        {"name": "read_file", "arguments": {"path": "b.py"}},
    ]
    llm.set_script({"replies": [{"tool_calls": calls}]})
    reply = await collect(provider(llm.url), ask("Read both"), tools=[READ_FILE])
    assert reply.finish_reason == "tool_calls"
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("read_file", {"path": "a.py"}),
        ("read_file", {"path": "b.py"}),
    ]
    assert len({c.id for c in reply.tool_calls}) == 2
    (tool,) = llm.requests[0].body["tools"]
    assert tool == {"type": "function", "function": READ_FILE.to_dict()}


async def test_prior_calls_and_results_use_ollamas_form(llm: FakeLLM) -> None:
    call = NativeToolCall("call_0", "read_file", {"path": "a.py"})
    messages = [
        *ask("Read a.py"),
        ChatMessage("assistant", "", tool_calls=(call,)),
        ChatMessage("tool", "print('a')", tool_call_id="call_0"),
    ]
    llm.set_script({"replies": ["It prints a."]})
    assert (await collect(provider(llm.url), messages, tools=[READ_FILE])).text == "It prints a."
    wire = llm.requests[0].body["messages"]
    assert wire[2]["tool_calls"] == [
        {"function": {"name": "read_file", "arguments": {"path": "a.py"}}}
    ]
    assert wire[3] == {"role": "tool", "content": "print('a')", "tool_name": "read_file"}


async def test_done_reason_length_is_reported(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": "cut he", "finish_reason": "length"}]})
    assert (await collect(provider(llm.url), ask("long"))).finish_reason == "length"


async def test_503_then_success_is_retried(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"fault": "503"}, {"fault": "429", "retry_after": 0}, "Ok."]})
    assert (await collect(provider(llm.url), ask("hello"))).text == "Ok."
    assert len(llm.requests) == 3


async def test_500_forever_is_a_clear_error(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"fault": "500"}]})
    with pytest.raises(ProviderError) as failure:
        await collect(provider(llm.url), ask("hello"))
    assert failure.value.status == 500
    assert failure.value.provider == "ollama"
    assert "fakellm: scripted error 500" in str(failure.value)
    assert len(llm.requests) == 3


async def test_garbage_lines_are_skipped(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": "still fine", "fault": "malformed_sse"}]})
    assert (await collect(provider(llm.url), ask("hello"))).text == "still fine"


async def test_a_dropped_stream_is_an_error_not_a_short_answer(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": "abcdefghijklmnop", "fault": "drop_mid_stream"}]})
    with pytest.raises(ProviderError):
        await collect(provider(llm.url), ask("hello"))


async def test_without_a_model_the_first_pulled_one_is_used(llm: FakeLLM) -> None:
    llm.set_script({"model": "llama3.2:1b", "replies": ["Hi."]})
    ollama = provider(llm.url, model="default")
    assert (await collect(ollama, ask("hello"))).text == "Hi."
    assert [r.path for r in llm.requests] == ["/api/tags", "/api/chat"]
    assert llm.requests[1].body["model"] == "llama3.2:1b"


async def test_cancelling_a_stream_leaves_the_provider_usable(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": "y" * 300, "chunk_size": 2, "delay_ms": 20}, "Ok."]})
    ollama = provider(llm.url)
    started = asyncio.Event()

    async def consume() -> None:
        async for _ in ollama.stream_chat(ask("slow")):
            started.set()

    task = asyncio.ensure_future(consume())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (await collect(ollama, ask("again"))).text == "Ok."


class _NoToolsHandler(BaseHTTPRequestHandler):
    """An Ollama whose model cannot use tools: 400 when `tools` is sent, else one answer."""

    bodies: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).bodies.append(body)
        if "tools" in body:
            refusal = "registry.ollama.ai/library/gemma:2b does not support tools"
            data = json.dumps({"error": refusal})
            status = 400
        else:
            line = {"message": {"role": "assistant", "content": "no tools here"}, "done": True}
            data, status = json.dumps(line) + "\n", 200
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data.encode())


@pytest.fixture
def no_tools_server() -> Iterator[str]:
    _NoToolsHandler.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NoToolsHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


async def test_a_model_without_tools_is_asked_again_without_them(no_tools_server: str) -> None:
    ollama = provider(no_tools_server)
    assert (await collect(ollama, ask("hi"), tools=[READ_FILE])).text == "no tools here"
    assert ["tools" in b for b in _NoToolsHandler.bodies] == [True, False]
    assert (await collect(ollama, ask("hi"), tools=[READ_FILE])).text == "no tools here"
    assert ["tools" in b for b in _NoToolsHandler.bodies] == [True, False, False]


def test_default_base_url_is_the_local_ollama() -> None:
    assert OllamaProvider(Config(provider="ollama")).url == "http://127.0.0.1:11434/api/chat"
    assert OllamaProvider(Config(baseUrl="http://h:1/v1")).url == "http://h:1/api/chat"
