"""A project's `.mcp.json` trusted over ACP and over `agent-ls chat`, as over LSP: asked once
per workspace and file content ("Trust the MCP servers of .mcp.json?" Trust / Deny, naming
what would run), Deny starts nothing, a changed file asks again, trust outlives the process.
ACP asks with `session/request_permission` (the official SDK client); the CLI asks on the
terminal (a real pty) and, without one, trusts nothing and says how to trust the file."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path
from typing import Any

from acp import text_block
from acp.schema import AllowedOutcome, RequestPermissionResponse

from tests.e2e.conversations import tool
from tests.e2e.test_acp import RecordingClient, acp_agent
from tests.e2e.test_cli_chat import AGENT_LS, cli_env, run_chat
from tests.e2e.test_commands_cli import git_repo
from tests.e2e.test_mcp_project import answer, write_project
from tests.fakellm import FakeLLM, last_user_message


class TrustingClient(RecordingClient):
    """An ACP client that picks the permission option by its name (Trust, Deny...)."""

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permissions.append(tool_call)
        choice = self.answers.pop(0) if self.answers else "Deny"
        option = next(o for o in options if o.name == choice)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=option.option_id)
        )


def offered(llm: FakeLLM, index: int = -1) -> bool:
    return "mcp__git__git_status" in str(llm.requests[index])


def trust_prompt_text(call: Any) -> str:
    return "".join(block.content.text for block in call.content or [])


async def prompt(conn: Any, session_id: str, text: str) -> None:
    response = await conn.prompt(session_id=session_id, prompt=[text_block(text)])
    assert response.stop_reason == "end_turn"


async def test_acp_asks_with_request_permission_once_per_content(tmp_path: Path) -> None:
    root, state = git_repo(tmp_path / "ws"), tmp_path / "state"
    write_project(root)
    status = tool("mcp__git__git_status", repo_path=str(root))
    replies = [answer("one"), answer("two"), status, answer("three"), answer("four")]
    client = TrustingClient()
    client.answers = ["Deny", "Trust"]
    with FakeLLM({"replies": replies}) as llm:
        async with acp_agent(llm, client, XDG_STATE_HOME=str(state)) as conn:
            session = (await conn.new_session(cwd=str(root))).session_id
            await prompt(conn, session, "hello")
            (asked,) = client.permissions
            assert asked.title == "Trust the MCP servers of .mcp.json?"
            assert str(root / ".mcp.json") in trust_prompt_text(asked)
            assert "mcp_server_git" in trust_prompt_text(asked)  # what would run
            assert not offered(llm)  # Deny starts nothing
            await prompt(conn, session, "again")
            assert len(client.permissions) == 1  # the same content is not asked again
            assert not offered(llm)
            write_project(root, marker="changed")
            await prompt(conn, session, "now")
            assert len(client.permissions) == 2  # a changed file asks again
            assert offered(llm, -2)
            assert "Repository status" in last_user_message(llm.requests[-1])
        restarted = TrustingClient()
        async with acp_agent(llm, restarted, XDG_STATE_HOME=str(state)) as conn:
            session = (await conn.new_session(cwd=str(root))).session_id
            await prompt(conn, session, "after a restart")
            assert restarted.permissions == []  # trusted: kept for this workspace and content
            assert offered(llm)


def chat_on_a_terminal(
    llm: FakeLLM, root: Path, message: str, typed: str, state: Path
) -> subprocess.CompletedProcess[str]:
    """`agent-ls chat` with a terminal as stdin, `typed` already typed on it."""
    leader, follower = pty.openpty()
    try:
        os.write(leader, typed.encode())
        return subprocess.run(
            [AGENT_LS, "chat", "--workspace", str(root), message],
            env=cli_env(llm, XDG_STATE_HOME=str(state)),
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        os.close(follower)
        os.close(leader)


def test_the_cli_asks_on_the_terminal_and_without_one_says_how_to_trust(tmp_path: Path) -> None:
    root, state = git_repo(tmp_path / "ws"), tmp_path / "state"
    write_project(root)
    status = tool("mcp__git__git_status", repo_path=str(root))
    replies = [answer("one"), answer("two"), status, answer("three"), answer("four")]
    with FakeLLM({"replies": replies}) as llm:
        piped = run_chat(llm, "--workspace", str(root), "hello", XDG_STATE_HOME=str(state))
        assert piped.returncode == 0, piped.stderr
        assert "stdin is not a terminal" in piped.stderr
        assert "answer t" in piped.stderr  # how to trust it
        assert f"--mcp-config {root / '.mcp.json'}" in piped.stderr
        assert not offered(llm)

        denied = chat_on_a_terminal(llm, root, "hi", "n\n", state)
        assert denied.returncode == 0, denied.stderr
        assert "Trust the MCP servers of .mcp.json? [t]rust / [N]o" in denied.stderr
        assert "mcp_server_git" in denied.stderr  # what would run
        assert not offered(llm)

        trusted = chat_on_a_terminal(llm, root, "status?", "t\n", state)
        assert trusted.returncode == 0, trusted.stderr
        assert offered(llm, -2)
        assert "Repository status" in last_user_message(llm.requests[-1])

        again = run_chat(llm, "--workspace", str(root), "later", XDG_STATE_HOME=str(state))
        assert "Trust the MCP servers" not in again.stderr  # kept for this content
        assert "not started" not in again.stderr
        assert offered(llm)
