"""Behind the real server, the openai provider reuses one connection for every request, and
auto-detection probes over a kept connection too."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

from server.resolve import LOCAL_PROBE_ENV, OLLAMA_PROBE_ENV, OPENAI_PROBE_ENV
from tests.e2e.conftest import chat
from tests.fakellm import FakeLLM

TURNS = 15


async def test_every_turn_goes_over_one_connection(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    fakellm.set_script({"replies": [f"Answer number {i}." for i in range(TURNS)]})
    session = None
    for i in range(TURNS):
        params = {} if session is None else {"sessionId": session}
        result = await chat(client, f"question {i}", **params)
        session = result["sessionId"]
        assert result["text"] == f"Answer number {i}."
    assert len(fakellm.requests) == TURNS
    assert fakellm.connections == 1


async def test_an_auto_detected_server_is_probed_and_asked_over_kept_connections(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")}
    env |= {OPENAI_PROBE_ENV: fakellm.url, OLLAMA_PROBE_ENV: "off", LOCAL_PROBE_ENV: "off"}
    workspace = tmp_path / "ws"
    workspace.mkdir()
    client = make_test_lsp_client()
    await client.start_io(sys.executable, "-m", "server", env=env)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
        )
    )
    try:
        fakellm.set_script({"replies": [f"Answer {i}." for i in range(TURNS)]})
        for i in range(TURNS):
            assert (await chat(client, f"question {i}"))["text"] == f"Answer {i}."
    finally:
        await client.shutdown_session()
    paths = [r.path for r in fakellm.requests]
    # the resolution is kept while the settings do not change: one probe, not one per turn
    assert paths.count("/v1/models") == 1
    assert paths.count("/v1/chat/completions") == TURNS
    assert fakellm.connections <= 2  # the probe's connection, then one for every chat request
