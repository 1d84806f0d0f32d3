"""`agent/status` over stdio: the provider the server would use, why, and whether it answers."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

from server.protocol import AGENT_STATUS
from server.resolve import LOCAL_PROBE_ENV, OLLAMA_PROBE_ENV, OPENAI_PROBE_ENV
from tests.e2e.conftest import as_dict
from tests.fakellm import FakeLLM

DEAD = "http://127.0.0.1:9"
# The server as `agent-ls` runs it, with agent/status registered if app.py does not yet.
LAUNCHER = """
import sys
from server.stdio import protocol_stdout
from server.app import build_server
from server.features import status
server = build_server()
if "agent/status" not in server.protocol.fm.features:
    status.register(server)
server.start_io(sys.stdin.buffer, protocol_stdout())
"""

Start = Callable[..., Any]


def server_env(**probes: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")}
    env |= {OLLAMA_PROBE_ENV: DEAD, OPENAI_PROBE_ENV: DEAD, LOCAL_PROBE_ENV: "off"}
    return env | probes


@pytest.fixture
async def start(tmp_path: Path) -> AsyncIterator[Start]:
    clients: list[LanguageClient] = []

    async def launch(env: dict[str, str], settings: dict[str, Any] | None = None) -> Any:
        client = make_test_lsp_client()
        await client.start_io(sys.executable, "-c", LAUNCHER, env=env)
        clients.append(client)
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=tmp_path.as_uri(),
                initialization_options={"agentLs": settings or {}},
            )
        )
        return client

    yield launch
    for client in clients:
        await client.shutdown_session()


async def status(client: LanguageClient, params: dict[str, Any] | None = None) -> Any:
    request = client.protocol.send_request_async  # untyped in pygls
    return as_dict(await request(AGENT_STATUS, params or {}))  # type: ignore[no-untyped-call]


async def test_a_detected_ollama_is_reported_and_answers(start: Start) -> None:
    with FakeLLM({"model": "llama3.2:1b", "replies": ["pong"]}) as ollama:
        client = await start(server_env(**{OLLAMA_PROBE_ENV: ollama.url}))
        report = await status(client)
        assert report["provider"] == "ollama"
        assert report["model"] == "llama3.2:1b"
        assert report["baseUrl"] == ollama.url
        assert "Ollama" in report["reason"]
        assert report["reachable"] is True
        assert "/api/chat" in [r.path for r in ollama.requests]


async def test_explicit_settings_are_reported_as_the_reason(start: Start) -> None:
    with FakeLLM({"replies": ["pong"]}) as llm:
        settings = {"provider": "openai", "baseUrl": llm.base_url_openai, "model": "m1"}
        client = await start(server_env(), settings)
        report = await status(client)
        assert (report["provider"], report["model"]) == ("openai", "m1")
        assert "agentLs.provider" in report["reason"]
        assert report["reachable"] is True


async def test_a_failing_provider_is_unreachable_with_the_reason(start: Start) -> None:
    with FakeLLM({"replies": [{"status": 401}]}) as llm:
        client = await start(server_env(AGENT_LS_PROVIDER="anthropic", AGENT_LS_BASE_URL=llm.url))
        report = await status(client)
        assert report["provider"] == "anthropic"
        assert "AGENT_LS_PROVIDER" in report["reason"]
        assert report["reachable"] is False
        assert "HTTP 401" in report["detail"]


async def test_nothing_configured_says_how_to_configure(start: Start) -> None:
    client = await start(server_env())
    report = await status(client)
    assert report["provider"] is None
    assert report["reachable"] is False
    assert "pip install 'agent-ls[local]'" in report["detail"]
    assert [c["source"] for c in report["candidates"]][-1] == "local"


async def test_check_false_skips_the_test_request(start: Start) -> None:
    with FakeLLM({"model": "llama3.2:1b", "replies": ["pong"]}) as ollama:
        client = await start(server_env(**{OLLAMA_PROBE_ENV: ollama.url}))
        report = await status(client, {"check": False})
        assert report["provider"] == "ollama"
        assert report["reachable"] is None
        assert [r.path for r in ollama.requests] == ["/api/tags"]
