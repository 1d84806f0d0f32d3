"""anthropic and ollama behind the real server (stdio): streaming, native tool calls through
the agent loop, retries and cancellation, each against the fake LLM's own wire protocol."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

from server.protocol import AGENT_CHAT, AGENT_CHAT_PROGRESS
from tests.e2e.conftest import ChatRecorder, as_dict, cancel, start_chat
from tests.fakellm import FakeLLM

PROVIDERS = ["anthropic", "ollama"]
SECRET = "sk-ant-e2e-5e1f0a"


@pytest.fixture(params=PROVIDERS)
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM({"replies": ["Hello."]}) as server:
        yield server


@pytest.fixture
async def client(provider: str, llm: FakeLLM, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "hello.py").write_text('def greet(name):\n    return "Hello, " + name\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_LS_", "ANTHROPIC_"))}
    env["ANTHROPIC_API_KEY"] = SECRET
    client = make_test_lsp_client()
    recorder = ChatRecorder()
    client.chat = recorder  # type: ignore[attr-defined]

    async def on_progress(params: Any) -> None:
        await recorder.add(params)

    client.feature(AGENT_CHAT_PROGRESS)(on_progress)
    await client.start_io(sys.executable, "-m", "server", env=env)
    settings = {
        "provider": provider,
        "baseUrl": llm.url,
        "model": "fake-model",
        "retryBaseDelay": 0.05,
        "toolProtocol": "native",
    }
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
            initialization_options={"agentLs": settings},
        )
    )
    yield client
    await client.shutdown_session()


async def chat(client: LanguageClient, message: str) -> Any:
    request = client.protocol.send_request_async  # untyped in pygls
    return as_dict(await request(AGENT_CHAT, {"message": message}))  # type: ignore[no-untyped-call]


def strings(value: Any) -> str:
    """Every string inside a JSON value, joined: where a text went, whatever the wire form."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        value = list(value.values())
    return "\n".join(strings(v) for v in value) if isinstance(value, list) else ""


def chat_paths(llm: FakeLLM) -> list[str]:
    return [r.path for r in llm.requests if r.method == "POST"]


async def test_reply_streams_as_deltas(client: LanguageClient, llm: FakeLLM, provider: str) -> None:
    # 40 ms between chunks: longer than the server's 15 ms text coalescing window
    reply = {"content": "Streaming in small pieces.", "chunk_size": 3, "delay_ms": 40}
    llm.set_script({"replies": [reply]})
    result = await chat(client, "hi")
    assert result["text"] == "Streaming in small pieces."
    deltas = client.chat.texts(result["sessionId"])  # type: ignore[attr-defined]
    assert len(deltas) > 3
    assert "".join(deltas) == result["text"]
    expected = "/v1/messages" if provider == "anthropic" else "/api/chat"
    assert chat_paths(llm) == [expected]


async def test_native_tool_call_runs_and_its_result_goes_back(
    client: LanguageClient, llm: FakeLLM, provider: str
) -> None:
    call = {"name": "read_file", "arguments": {"path": "hello.py"}}
    llm.set_script({"replies": [{"tool_calls": [call]}, "It defines greet()."]})
    result = await chat(client, "What is in hello.py?")
    assert result["text"] == "It defines greet()."
    first, second = [r for r in llm.requests if r.method == "POST"]
    tools = first.body["tools"]
    names = [t["name"] if provider == "anthropic" else t["function"]["name"] for t in tools]
    assert "read_file" in names
    assert '"Hello, " + name' in strings(second.body["messages"])  # the file went back
    kinds = [p["kind"] for p in client.chat.items]  # type: ignore[attr-defined]
    assert "tool_call" in kinds
    assert "tool_result" in kinds


async def test_429_then_success_is_retried(client: LanguageClient, llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"fault": "429", "retry_after": 0}, "Recovered."]})
    assert (await chat(client, "hello"))["text"] == "Recovered."
    assert len(chat_paths(llm)) == 2


async def test_5xx_forever_is_a_clear_error_naming_the_provider(
    client: LanguageClient, llm: FakeLLM, provider: str
) -> None:
    llm.set_script({"replies": [{"fault": "503"}]})
    with pytest.raises(JsonRpcException) as failure:
        await chat(client, "hello")
    assert f"provider {provider} failed (HTTP 503)" in str(failure.value)
    assert SECRET not in str(failure.value)
    assert len(chat_paths(llm)) == 4


async def test_cancel_stops_the_stream_and_the_server_keeps_serving(
    client: LanguageClient, llm: FakeLLM
) -> None:
    llm.set_script({"replies": [{"content": "z" * 400, "chunk_size": 2, "delay_ms": 20}]})
    request = start_chat(client, "talk slowly", "chat-to-cancel")  # 4 s of streaming
    await client.chat.wait_for(lambda items: len(items) >= 3)  # type: ignore[attr-defined]
    cancel(client, "chat-to-cancel")  # what an editor sends when the user presses Stop
    with pytest.raises(JsonRpcException) as cancelled:
        await request
    assert cancelled.value.code == JsonRpcRequestCancelled.CODE
    # Once the server has answered RequestCancelled, the turn sends nothing more, while the
    # next turn streams (the cancelled stream would still have seconds to go).
    received = len(client.chat.items)  # type: ignore[attr-defined]
    llm.set_script({"replies": [{"content": "after cancel", "delay_ms": 100}]})
    result = await chat(client, "still there?")
    assert result["text"] == "after cancel"
    late = [
        p
        for p in client.chat.items[received:]  # type: ignore[attr-defined]
        if p["sessionId"] != result["sessionId"]
    ]
    assert late == [], "the cancelled turn kept streaming"


async def test_many_turns_reuse_one_connection(client: LanguageClient, llm: FakeLLM) -> None:
    call = {"name": "read_file", "arguments": {"path": "hello.py"}}
    llm.set_script({"replies": [{"tool_calls": [call]}, "Read it.", "Second.", "Third."]})
    for message in ("read hello.py", "again", "and again"):
        await chat(client, message)
    assert len(chat_paths(llm)) == 4
    assert llm.connections == 1
