"""A project's `.mcp.json` over LSP: its servers start only once the user trusts the file
("Trust the MCP servers of .mcp.json?" Trust / Deny, naming what would run); Deny is not
asked again for the same content; a changed file asks again; trust outlives the server
process (kept outside the workspace) and is per content."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

from tests.e2e.conftest import chat, settings_for
from tests.e2e.conversations import doc, tool
from tests.e2e.test_commands_lsp import Prompts
from tests.e2e.test_mcp_status import PIDFILE_SERVER, alive, gone
from tests.fakellm import FakeLLM, last_user_message


def answer(text: str) -> str:
    return doc(action="text_response", text_response=text)


def write_project(root: Path, *, marker: str = "") -> None:
    server: dict[str, Any] = {"command": sys.executable, "args": ["-m", "mcp_server_git"]}
    if marker:
        server["env"] = {"MARKER": marker}  # changes the content, not what runs
    entry = {"git": server | {"allow": "*"}}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": entry}))


@asynccontextmanager
async def editor(
    root: Path, state: Path, llm: FakeLLM, answers: list[str | None]
) -> AsyncIterator[tuple[LanguageClient, Prompts]]:
    client = make_test_lsp_client()
    prompts = Prompts(client, answers)
    env = os.environ | {"XDG_STATE_HOME": str(state)}
    await client.start_io(sys.executable, "-m", "server", env=env)
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
                initialization_options={"agentLs": settings_for(llm)},
            )
        )
        yield client, prompts
        await client.shutdown_async(None)
    finally:
        client.exit(None)
        await client.stop()


def offered(llm: FakeLLM, index: int = -1) -> bool:
    return "mcp__git__git_status" in str(llm.requests[index])


async def test_deny_then_a_changed_file_trusted_then_remembered(tmp_path: Path) -> None:
    root, state = tmp_path / "ws", tmp_path / "state"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    write_project(root)
    status = tool("mcp__git__git_status", repo_path=str(root))
    script: dict[str, Any] = {
        "replies": [answer("one"), answer("two"), status, answer("three"), answer("four")]
    }
    with FakeLLM(script) as llm:
        async with editor(root, state, llm, ["Deny", "Trust"]) as (client, prompts):
            first = await chat(client, "hello")
            assert not offered(llm)
            (asked,) = prompts.seen
            assert asked.message.endswith("Trust the MCP servers of .mcp.json?")
            assert str(root / ".mcp.json") in asked.message
            assert "mcp_server_git" in asked.message  # what would run
            assert [a.title for a in asked.actions or []] == ["Trust", "Deny"]
            await chat(client, "again", sessionId=first["sessionId"])
            assert len(prompts.seen) == 1  # the same content is not asked again
            assert not offered(llm)
            write_project(root, marker="changed")
            await chat(client, "now", sessionId=first["sessionId"])
            assert len(prompts.seen) == 2
            assert offered(llm, -2)
            assert "Repository status" in last_user_message(llm.requests[-1])
        assert (state / "agent-ls" / "mcp-trust.json").is_file()  # kept outside the workspace
        async with editor(root, state, llm, []) as (client, prompts):
            await chat(client, "after a restart")
            assert prompts.seen == []
            assert offered(llm)


async def test_the_servers_of_a_removed_folder_stop(tmp_path: Path) -> None:
    root, state = tmp_path / "ws", tmp_path / "state"
    root.mkdir()
    pidfile = tmp_path / "git.pid"
    line = PIDFILE_SERVER.format(pidfile=pidfile, python=sys.executable)
    entry = {"git": {"command": "/bin/sh", "args": ["-c", line]}}
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": entry}))
    with FakeLLM({"replies": [answer("one")]}) as llm:
        async with editor(root, state, llm, ["Trust"]) as (client, _):
            await chat(client, "hello")
            pid = int(pidfile.read_text())
            assert alive(pid)
            folder = types.WorkspaceFolder(uri=root.as_uri(), name="ws")
            client.workspace_did_change_workspace_folders(
                types.DidChangeWorkspaceFoldersParams(
                    event=types.WorkspaceFoldersChangeEvent(added=[], removed=[folder])
                )
            )
            assert gone(pid), "the removed folder's MCP server is still running"
