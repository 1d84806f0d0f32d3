"""Only JSON-RPC reaches the real stdout, whatever a handler or a child process prints."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.e2e.conftest import chat, settings_for
from tests.fakellm import FakeLLM


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "tests.e2e.noisy_server"])
)
async def noisy_client(lsp_client: LanguageClient, fakellm: FakeLLM, tmp_path: Path):
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim"),
            root_uri=tmp_path.as_uri(),
            initialization_options={"agentLs": settings_for(fakellm)},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_stray_output_does_not_corrupt_the_stream(
    noisy_client: LanguageClient, fakellm: FakeLLM
) -> None:
    for _ in range(2):
        answer = await noisy_client.protocol.send_request_async("test/noisy", {})
        assert answer is not None
    fakellm.set_script({"replies": ["still talking"]})
    result = await chat(noisy_client, "are you there?")
    assert result["text"] == "still talking"
    assert noisy_client.error is None
