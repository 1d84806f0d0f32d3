"""MCP over ACP through the official SDK client: the `mcpServers` of `session/new` (stdio,
and Streamable HTTP since the agent advertises `mcpCapabilities.http`) run for the session;
the model uses a tool in a turn (the client consents through `session/request_permission`,
the tool call's title names the server); the server is stopped when the session ends with
the connection (the client closes the agent's stdin)."""

from __future__ import annotations

import sys
from pathlib import Path

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import EnvVariable, HttpMcpServer, McpServerStdio

from tests.e2e.conversations import doc, tool
from tests.e2e.mcp_servers import everything_http, require_everything
from tests.e2e.test_acp import RecordingClient, acp_agent, agent_env
from tests.e2e.test_mcp_status import alive, gone
from tests.fakellm import FakeLLM, last_user_message

SCRIPT = {
    "replies": [
        tool("mcp__everything__echo", message="through the session's server"),
        doc(action="text_response", text_response="done"),
    ]
}


def pid_recording_everything(pidfile: Path) -> McpServerStdio:
    """server-everything over stdio, started by a shell that writes the server's pid."""
    node, script = require_everything()
    line = f'echo $$ > "$PIDFILE"; exec {node} {script} stdio'
    return McpServerStdio(
        name="everything",
        command="/bin/sh",
        args=["-c", line],
        env=[EnvVariable(name="PIDFILE", value=str(pidfile))],
    )


async def test_a_session_server_is_used_in_a_turn_and_stopped_with_the_session(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    pidfile = tmp_path / "everything.pid"
    client = RecordingClient()
    client.answers = ["allow"]
    with FakeLLM(SCRIPT) as llm:
        command = [sys.executable, "-m", "server", "acp"]
        async with spawn_agent_process(client, *command, env=agent_env(llm)) as (conn, _):
            await conn.initialize(protocol_version=PROTOCOL_VERSION)
            session = await conn.new_session(
                cwd=str(root), mcp_servers=[pid_recording_everything(pidfile)]
            )
            response = await conn.prompt(
                session_id=session.session_id, prompt=[text_block("echo something")]
            )
            assert response.stop_reason == "end_turn"
            pid = int(pidfile.read_text())
            assert alive(pid)
    # the connection ended (stdin closed, the agent exited)
    assert gone(pid), "the session's MCP server outlived the session"
    assert "Echo: through the session's server" in last_user_message(llm.requests[1])
    (asked,) = client.permissions
    assert "everything: echo" in asked.title
    titles = [u.title for u in client.updates if u.session_update == "tool_call"]
    assert any(t.startswith("everything: echo") for t in titles)


async def test_the_agent_advertises_http_mcp_servers(tmp_path: Path) -> None:
    with FakeLLM(SCRIPT) as llm:
        command = [sys.executable, "-m", "server", "acp"]
        async with spawn_agent_process(RecordingClient(), *command, env=agent_env(llm)) as (
            conn,
            _,
        ):
            init = await conn.initialize(protocol_version=PROTOCOL_VERSION)
    assert init.agent_capabilities.mcp_capabilities.http is True


async def test_a_session_http_server_is_used(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    client = RecordingClient()
    client.answers = ["allow"]
    with everything_http() as url, FakeLLM(SCRIPT) as llm:
        async with acp_agent(llm, client) as conn:
            session = await conn.new_session(
                cwd=str(root),
                mcp_servers=[HttpMcpServer(type="http", name="everything", url=url, headers=[])],
            )
            await conn.prompt(session_id=session.session_id, prompt=[text_block("echo")])
    assert "Echo: through the session's server" in last_user_message(llm.requests[1])


async def test_a_denied_call_is_not_made(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    client = RecordingClient()
    client.answers = ["reject"]
    with FakeLLM(SCRIPT) as llm:
        async with acp_agent(llm, client) as conn:
            session = await conn.new_session(
                cwd=str(root), mcp_servers=[pid_recording_everything(tmp_path / "pid")]
            )
            await conn.prompt(session_id=session.session_id, prompt=[text_block("echo")])
    sent = last_user_message(llm.requests[1])
    assert "the user denied it" in sent
    assert "Echo:" not in sent


async def test_a_loaded_session_gets_the_servers_of_session_load(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    client = RecordingClient()
    client.answers = ["allow"]
    with FakeLLM(SCRIPT) as llm:
        async with acp_agent(llm, RecordingClient()) as conn:
            created = await conn.new_session(cwd=str(root))
        async with acp_agent(llm, client) as conn:
            await conn.load_session(
                cwd=str(root),
                session_id=created.session_id,
                mcp_servers=[pid_recording_everything(tmp_path / "pid")],
            )
            await conn.prompt(session_id=created.session_id, prompt=[text_block("echo")])
    assert "Echo: through the session's server" in last_user_message(llm.requests[1])
