"""MCP through `agent-ls chat --mcp-config FILE`: a real process, mcp-server-git over stdio,
the fake LLM scripting the model. Without a terminal a call is denied with a hint; a tool the
entry allows runs and its output reaches the model; the servers end with the command."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.e2e.conversations import doc, tool
from tests.e2e.test_cli_chat import run_chat
from tests.e2e.test_commands_cli import git_repo
from tests.e2e.test_mcp_status import PIDFILE_SERVER, gone
from tests.fakellm import FakeLLM


def answer(text: str) -> str:
    return doc(action="text_response", text_response=text)


def config(path: Path, pidfile: Path, **entry: Any) -> Path:
    line = PIDFILE_SERVER.format(pidfile=pidfile, python=sys.executable)
    server = {"command": "/bin/sh", "args": ["-c", line]} | entry
    path.write_text(json.dumps({"mcpServers": {"git": server}}))
    return path


def test_an_allowed_tool_runs_and_the_server_ends_with_the_command(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    root = git_repo(tmp_path / "ws")
    pidfile = tmp_path / "git.pid"
    path = config(tmp_path / "mcp.json", pidfile, allow=["git_status"])
    fakellm.set_script(
        {"replies": [tool("mcp__git__git_status", repo_path=str(root)), answer("ok")]}
    )
    done = run_chat(fakellm, "--workspace", str(root), "--mcp-config", str(path), "status?")
    assert done.returncode == 0, done.stderr
    assert "Repository status" in fakellm.requests[-1].user_message
    assert "app.py" in fakellm.requests[-1].user_message
    assert gone(int(pidfile.read_text())), "the MCP server outlived agent-ls chat"


def test_without_a_terminal_a_call_is_denied_with_a_hint(fakellm: FakeLLM, tmp_path: Path) -> None:
    root = git_repo(tmp_path / "ws")
    path = config(tmp_path / "mcp.json", tmp_path / "git.pid")
    fakellm.set_script(
        {"replies": [tool("mcp__git__git_status", repo_path=str(root)), answer("ok")]}
    )
    done = run_chat(fakellm, "--workspace", str(root), "--mcp-config", str(path), "status?")
    assert done.returncode == 0, done.stderr
    assert "denied the MCP tool git_status of git" in done.stderr
    assert '"allow"' in done.stderr
    seen = fakellm.requests[-1].user_message
    assert "the user denied it" in seen
    assert "Repository status" not in seen
