"""A stored conversation whose file is damaged: every front end says it is corrupt and where
(`agent/chat {sessionId}`, `agent/sessions`, ACP `session/load`, `agent-ls sessions`), and
the file is left exactly as it was (nothing deleted, nothing overwritten)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from acp import RequestError
from pygls.exceptions import JsonRpcException

from server.history import default_sessions_dir
from tests.e2e.test_acp import RecordingClient, acp_agent
from tests.e2e.test_sessions import AGENT_LS, request, server
from tests.fakellm import FakeLLM

DAMAGED = b'{"id": "x", "title": "Capital?", "messages": [{"role": "user", "cont'
WHY = "not valid JSON: Unterminated string starting at (line 1, column 64)"


async def corrupted_session(root: Path, llm: FakeLLM) -> tuple[str, Path]:
    """A conversation stored by a real server, then its file cut short."""
    async with server(root, llm) as client:
        first = await request(client, "agent/chat", {"message": "Capital of France?"})
    path = default_sessions_dir(root) / f"{first.sessionId}.json"
    assert path.is_file()
    path.write_bytes(DAMAGED)
    return str(first.sessionId), path


async def test_the_language_server_names_a_corrupt_session_file(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    with FakeLLM({"replies": ["Paris.", "Hello again."]}) as llm:
        session_id, path = await corrupted_session(root, llm)
        async with server(root, llm) as client:
            listed = await request(client, "agent/sessions", {})
            with pytest.raises(JsonRpcException) as failure:
                await request(client, "agent/chat", {"message": "more?", "sessionId": session_id})
            fresh = await request(client, "agent/chat", {"message": "new question"})
            listed_after = await request(client, "agent/sessions", {})
    (entry,) = [e for e in listed if e["id"] == session_id]
    assert entry["corrupt"] == f"{path} ({WHY})"
    assert failure.value.code == -32803
    message = str(failure.value)
    assert f"the stored conversation {session_id!r} is corrupt: {path}" in message
    assert "unknown session" not in message
    assert path.read_bytes() == DAMAGED  # left as it was
    assert fresh.text == "Hello again."
    assert {e["id"] for e in listed_after} == {session_id, fresh.sessionId}
    cli = subprocess.run(
        [AGENT_LS, "sessions", "--workspace", str(root)], capture_output=True, text=True, timeout=60
    )
    assert f"{session_id}  " in cli.stdout
    assert f"corrupt: {path} ({WHY})" in cli.stdout
    assert path.read_bytes() == DAMAGED


async def test_acp_session_load_names_a_corrupt_session_file(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    with FakeLLM({"replies": ["Paris."]}) as llm:
        session_id, path = await corrupted_session(root, llm)
        client = RecordingClient()
        async with acp_agent(llm, client) as conn:
            with pytest.raises(RequestError) as failure:
                await conn.load_session(cwd=str(root), session_id=session_id)
            listed = await conn.list_sessions(cwd=str(root))
    assert f"is corrupt: {path}" in str(failure.value)
    assert [s.title for s in listed.sessions if s.session_id == session_id] == [
        f"(corrupt: {path} ({WHY}))"
    ]
    assert path.read_bytes() == DAMAGED
