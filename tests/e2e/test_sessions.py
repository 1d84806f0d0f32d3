"""Conversations that survive a restart: `agent/chat` with an old `sessionId` continues (the
model gets the history), an unknown id is InvalidParams, `agent/sessions` lists and deletes,
and `agent-ls sessions` shows the same store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.client import LanguageClient

from tests.fakellm import FakeLLM

AGENT_LS = str(Path(sys.executable).parent / "agent-ls")


@asynccontextmanager
async def server(root: Path, llm: FakeLLM) -> AsyncIterator[LanguageClient]:
    """A fresh agent-ls process on stdio, initialized on `root`; shut down on exit."""
    client = LanguageClient("sessions-test", "0")
    client.feature("workspace/configuration")(lambda params: [None])
    client.feature("agent/chatProgress")(lambda params: None)
    await client.start_io(sys.executable, "-m", "server", env=dict(os.environ))
    options = {"agentLs": {"baseUrl": llm.base_url_openai, "model": "fake"}}
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            initialization_options=options,
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        )
    )
    client.initialized(types.InitializedParams())
    try:
        yield client
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()


async def request(client: LanguageClient, method: str, params: dict[str, Any]) -> Any:
    return await client.protocol.send_request_async(method, params)


def messages_of(llm: FakeLLM) -> list[dict[str, Any]]:
    body: dict[str, Any] = llm.requests[-1].body
    return list(body["messages"])


async def test_a_session_continues_after_a_restart(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    script = {"replies": ["Paris is the capital of France.", "About 2.1 million people."]}
    with FakeLLM(script) as llm:
        async with server(root, llm) as client:
            first = await request(client, "agent/chat", {"message": "Capital of France?"})
        async with server(root, llm) as client:
            listed = await request(client, "agent/sessions", {})
            assert [entry["id"] for entry in listed] == [first.sessionId]
            assert listed[0]["title"] == "Capital of France?"
            assert listed[0]["turns"] == 1
            second = await request(
                client,
                "agent/chat",
                {"message": "And its population?", "sessionId": first.sessionId},
            )
    assert second.sessionId == first.sessionId
    assert second.text == "About 2.1 million people."
    sent = [(m["role"], m["content"]) for m in messages_of(llm)]
    assert ("user", "Capital of France?") in sent
    assert ("assistant", "Paris is the capital of France.") in sent
    assert sent[-1] == ("user", "And its population?")


async def test_an_answered_turn_is_listed_at_once(tmp_path: Path) -> None:
    """The conversation is stored after the answer is sent, yet a listing or a deletion
    asked for right after the answer sees it (and a deleted one stays deleted)."""
    root = tmp_path / "ws"
    root.mkdir()
    with FakeLLM({"replies": ["one", "two", "three"]}) as llm:
        async with server(root, llm) as client:
            made = [await request(client, "agent/chat", {"message": f"turn {n}"}) for n in (1, 2)]
            listed = await request(client, "agent/sessions", {})
            assert sorted(entry["id"] for entry in listed) == sorted(m.sessionId for m in made)
            again = await request(
                client, "agent/chat", {"message": "turn 3", "sessionId": made[0].sessionId}
            )
            remaining = await request(client, "agent/sessions", {"delete": again.sessionId})
            assert [entry["id"] for entry in remaining] == [made[1].sessionId]
            assert [entry["turns"] for entry in remaining] == [1]
        async with server(root, llm) as client:
            listed = await request(client, "agent/sessions", {})
            assert [entry["id"] for entry in listed] == [made[1].sessionId]


async def test_unknown_session_is_invalid_params_and_delete_forgets(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    with FakeLLM({"replies": ["hello"]}) as llm:
        async with server(root, llm) as client:
            with pytest.raises(JsonRpcInvalidParams, match="unknown session 'nope'"):
                await request(client, "agent/chat", {"message": "hi", "sessionId": "nope"})
            made = await request(client, "agent/chat", {"message": "hi"})
            done = subprocess.run(
                [AGENT_LS, "sessions", "--workspace", str(root), "--json"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 0, done.stderr
            assert [entry["id"] for entry in json.loads(done.stdout)] == [made.sessionId]
            remaining = await request(client, "agent/sessions", {"delete": made.sessionId})
            assert remaining == []
            with pytest.raises(JsonRpcInvalidParams, match="unknown session"):
                await request(client, "agent/sessions", {"delete": made.sessionId})
            with pytest.raises(JsonRpcInvalidParams, match="unknown session"):
                await request(
                    client, "agent/chat", {"message": "again", "sessionId": made.sessionId}
                )
    gone = subprocess.run(
        [AGENT_LS, "sessions", "--workspace", str(root), "--delete", made.sessionId],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert gone.returncode == 1
    assert "unknown session" in gone.stderr


def test_stored_sessions_are_private(tmp_path: Path) -> None:
    from server.history import SessionStore
    from server.providers.base import ChatMessage

    store = SessionStore(tmp_path, tmp_path / "store")
    store.save("abc", [ChatMessage("user", "secret plan")])
    assert (tmp_path / "store").stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "store" / "abc.json").stat().st_mode & 0o777 == 0o600
