"""Malformed stream events and a reset mid-reply, behind the real server over stdio: the
client gets RequestFailed naming the provider and the bad field, no traceback, no Python
internals, and the server keeps serving."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

from server.lsp import REQUEST_FAILED
from server.protocol import AGENT_CHAT, AGENT_CHAT_PROGRESS
from tests.e2e.conftest import ChatRecorder, as_dict
from tests.fakellm import FakeLLM
from tests.unit.providers.test_malformed_events import ANTHROPIC, FIRST_TEXT, OLLAMA, OPENAI

CASES = [
    ("openai", *OPENAI["content-number"]),
    ("openai", *OPENAI["choices-string"]),
    ("openai", *OPENAI["index-letter"]),
    ("openai", *OPENAI["deeply-nested"]),
    ("anthropic", *ANTHROPIC["delta-string"]),
    ("anthropic", *ANTHROPIC["deeply-nested"]),
    ("ollama", *OLLAMA["content-number"]),
    ("ollama", *OLLAMA["tool_calls-string"]),
]


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    with FakeLLM({"replies": ["Hello."]}) as server:
        yield server


async def start(provider: str, llm: FakeLLM, workspace: Path) -> LanguageClient:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_LS_", "ANTHROPIC_"))}
    client = make_test_lsp_client()
    recorder = ChatRecorder()
    client.chat = recorder  # type: ignore[attr-defined]

    async def on_progress(params: Any) -> None:
        await recorder.add(params)

    client.feature(AGENT_CHAT_PROGRESS)(on_progress)
    await client.start_io(sys.executable, "-m", "server", env=env)
    base = llm.base_url_openai if provider == "openai" else llm.url
    settings = {"provider": provider, "baseUrl": base, "model": "m", "retryBaseDelay": 0.05}
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
            initialization_options={"agentLs": settings},
        )
    )
    return client


@pytest.fixture(params=["openai", "anthropic", "ollama"])
async def served(
    request: pytest.FixtureRequest, llm: FakeLLM, tmp_path: Path
) -> AsyncIterator[tuple[str, LanguageClient]]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    client = await start(str(request.param), llm, workspace)
    yield str(request.param), client
    await client.shutdown_session()


async def chat(client: LanguageClient, message: str) -> Any:
    request = client.protocol.send_request_async  # untyped in pygls
    return as_dict(await request(AGENT_CHAT, {"message": message}))  # type: ignore[no-untyped-call]


def assert_clean_failure(failure: JsonRpcException, provider: str) -> str:
    message = str(failure)
    assert failure.code == REQUEST_FAILED
    assert f"provider {provider} failed" in message
    assert "Traceback" not in message
    assert 'File "' not in message
    assert not failure.data  # no traceback in the error's data either
    return message


@pytest.mark.parametrize(("provider", "event", "field"), CASES)
async def test_a_malformed_event_is_a_clear_provider_error(
    llm: FakeLLM, tmp_path: Path, provider: str, event: Any, field: str
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    client = await start(provider, llm, workspace)
    try:
        llm.set_script({"replies": [{"events": [FIRST_TEXT[provider], event]}, "Still here."]})
        with pytest.raises(JsonRpcException) as failure:
            await chat(client, "hello")
        message = assert_clean_failure(failure.value, provider)
        assert "malformed stream event" in message
        assert field in message
        errors = [p for p in client.chat.items if p["kind"] == "error"]  # type: ignore[attr-defined]
        assert errors
        assert field in errors[0]["data"]["message"]
        assert (await chat(client, "again"))["text"] == "Still here."
    finally:
        await client.shutdown_session()


async def test_a_reset_mid_reply_says_what_happened(
    served: tuple[str, LanguageClient], llm: FakeLLM
) -> None:
    provider, client = served
    reset = {"content": "a partial answer, long enough", "fault": "reset_mid_stream"}
    llm.set_script({"replies": [reset, "Recovered."]})
    with pytest.raises(JsonRpcException) as failure:
        await chat(client, "hello")
    message = assert_clean_failure(failure.value, provider)
    assert "closed the connection in the middle of the reply" in message
    assert "dropped the reply" in message
    assert (await chat(client, "again"))["text"] == "Recovered."
