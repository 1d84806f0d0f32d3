"""End-to-end fixtures: the real server over stdio (pytest-lsp) and the fake LLM on loopback."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from server.protocol import AGENT_CHAT, AGENT_CHAT_PROGRESS
from tests.fakellm import FakeLLM

EDITORS = ["visual-studio-code", "neovim"]


@pytest.fixture
def fakellm() -> Iterator[FakeLLM]:
    with FakeLLM({"replies": ["Hello from the fake LLM."]}) as llm:
        yield llm


class ChatRecorder:
    """Collects agent/chatProgress notifications; tests wait on them, never sleep."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.changed = asyncio.Condition()

    async def add(self, params: Any) -> None:
        async with self.changed:
            self.items.append(as_dict(params))
            self.changed.notify_all()

    async def wait_for(self, predicate: Callable[[list[dict[str, Any]]], bool]) -> None:
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(lambda: predicate(self.items)), 20)

    def texts(self, session_id: str | None = None) -> list[str]:
        return [
            p["delta"]
            for p in self.items
            if p["kind"] == "text" and (session_id is None or p["sessionId"] == session_id)
        ]


def as_dict(value: Any) -> Any:
    """Notification params of custom methods, as plain JSON values."""
    if hasattr(value, "_asdict"):
        value = value._asdict()
    if isinstance(value, dict):
        return {k: as_dict(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_dict(v) for v in value]
    return value


def settings_for(llm: FakeLLM) -> dict[str, Any]:
    return {"baseUrl": llm.base_url_openai, "model": "fake", "retryBaseDelay": 0.05}


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "server"]),
    params=EDITORS,
)
async def client(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, fakellm: FakeLLM, tmp_path: Path
):
    recorder = ChatRecorder()
    lsp_client.chat = recorder  # type: ignore[attr-defined]

    async def on_chat_progress(params: Any) -> None:
        await recorder.add(params)

    lsp_client.feature(AGENT_CHAT_PROGRESS)(on_chat_progress)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    lsp_client.workspace_path = workspace  # type: ignore[attr-defined]
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(request.param),
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
            initialization_options={"agentLs": settings_for(fakellm)},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def chat(client: LanguageClient, message: str, **params: Any) -> dict[str, Any]:
    """Send agent/chat and return the result as a dict."""
    result = await client.protocol.send_request_async(AGENT_CHAT, {"message": message, **params})
    return as_dict(result)
