"""Settings: initializationOptions, workspace/configuration, live changes, bad values."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.e2e.conftest import chat, settings_for
from tests.fakellm import FakeLLM


async def wait_for_message(client: LanguageClient, needle: str) -> types.ShowMessageParams:
    async def arrived() -> types.ShowMessageParams:
        while True:
            for message in client.messages:
                if needle in message.message:
                    return message
            await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)

    return await asyncio.wait_for(arrived(), timeout=10)


async def test_workspace_configuration_change_applies_to_the_next_request(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    await chat(client, "first")
    assert fakellm.requests[-1].body["model"] == "fake"

    client.set_configuration({"model": "bigger-model"}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await chat(client, "second")
    assert fakellm.requests[-1].body["model"] == "bigger-model"


async def test_bad_setting_is_reported_and_the_default_kept(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    client.set_configuration({"maxRetries": "lots", "model": "m2"}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    message = await wait_for_message(client, "agentLs.maxRetries")
    assert "non-negative integer" in message.message
    assert message.type == types.MessageType.Warning

    fakellm.set_script({"replies": [{"fault": "503", "retry_after": 0}, "ok"]})
    result = await chat(client, "after a bad setting")
    assert result["text"] == "ok"  # retries still on (default 3), other keys applied
    assert fakellm.requests[-1].body["model"] == "m2"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "server"]))
async def badly_configured(lsp_client: LanguageClient, fakellm: FakeLLM, tmp_path: Path):
    options = {**settings_for(fakellm), "requestTimeout": "soon", "maxTurns": -2}
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=tmp_path.as_uri(),
            initialization_options={"agentLs": options},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_bad_initialization_options_are_named_and_the_server_runs(
    badly_configured: LanguageClient, fakellm: FakeLLM
) -> None:
    timeout = await wait_for_message(badly_configured, "agentLs.requestTimeout")
    assert "positive number" in timeout.message
    await wait_for_message(badly_configured, "agentLs.maxTurns")
    result = await chat(badly_configured, "hi")
    assert result["text"] == "Hello from the fake LLM."
