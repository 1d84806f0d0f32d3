"""MCP servers per workspace folder, through the real server with two folders: folder A's
`.mcp.json` (after Trust) and folder B's own settings (`agentLs.mcpServers` for B's
`scopeUri`) start that folder's servers, in the folder; a turn about a file of A offers A's
tools and the user's, not B's (and the other way round); `agent/status` names each server's
folder; a folder removed from the workspace stops its servers (checked by PID)."""

from __future__ import annotations

import json
import os
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
from tests.e2e.test_mcp_status import PIDFILE_SERVER, alive, gone, status
from tests.e2e.test_multiroot import BACK, FRONT, repo
from tests.fakellm import FakeLLM, last_user_message


def answer(text: str) -> str:
    return doc(action="text_response", text_response=text)


def git_server(pidfile: Path) -> dict[str, Any]:
    """mcp-server-git started by a shell that writes the server's pid (no `cwd`)."""
    line = PIDFILE_SERVER.format(pidfile=pidfile, python=sys.executable)
    return {"command": "/bin/sh", "args": ["-c", line], "allow": "*"}


def folder(path: Path) -> types.WorkspaceFolder:
    return types.WorkspaceFolder(uri=path.as_uri(), name=path.name)


@asynccontextmanager
async def two_folders(
    roots: list[Path], state: Path, llm: FakeLLM, settings: dict[str, Any], answers: list[str]
) -> AsyncIterator[tuple[LanguageClient, Prompts]]:
    """A VS Code-like client with the workspace folders `roots`; `settings`: the
    `agentLs` section by scope URI ("" for the user's)."""
    client = make_test_lsp_client()
    prompts = Prompts(client, list(answers))
    for scope, section in settings.items():
        client.set_configuration(section, section="agentLs", scope_uri=scope or None)
    env = os.environ | {"XDG_STATE_HOME": str(state)}
    await client.start_io(sys.executable, "-m", "server", env=env)
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=roots[0].as_uri(),
                workspace_folders=[folder(root) for root in roots],
                initialization_options={"agentLs": settings_for(llm)},
            )
        )
        yield client, prompts
        await client.shutdown_async(None)
    finally:
        client.exit(None)
        await client.stop()


def offered(llm: FakeLLM, server: str, index: int = -1) -> bool:
    return f"mcp__{server}__git_status" in str(llm.requests[index])


def about(path: Path) -> dict[str, Any]:
    """The chat context of an editor showing `path`."""
    return {"context": {"uri": path.as_uri()}}


def remove(client: LanguageClient, root: Path) -> None:
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[], removed=[folder(root)])
        )
    )


def cwd_of(pid: int) -> Path:
    return Path(os.readlink(f"/proc/{pid}/cwd"))


async def test_each_folder_runs_and_offers_its_own_servers_until_it_leaves(
    tmp_path: Path,
) -> None:
    a, b = tmp_path / "front", tmp_path / "back"
    a.mkdir()
    b.mkdir()
    repo(a, FRONT)
    repo(b, BACK)
    pids = {name: tmp_path / f"{name}.pid" for name in ("alpha", "beta", "user")}
    (a / ".mcp.json").write_text(json.dumps({"mcpServers": {"alpha": git_server(pids["alpha"])}}))
    settings = {
        "": {"mcpServers": {"user": git_server(pids["user"])}},
        b.as_uri(): {"mcpServers": {"beta": git_server(pids["beta"])}},
    }
    replies = [
        tool("mcp__alpha__git_status", repo_path=str(a)),
        answer("in A"),
        tool("mcp__beta__git_status", repo_path=str(b)),
        answer("in B"),
    ]
    with FakeLLM({"replies": replies}) as llm:
        async with two_folders([a, b], tmp_path / "state", llm, settings, ["Trust"]) as (
            client,
            prompts,
        ):
            await chat(client, "status of A", **about(a / "src" / "app.ts"))
            (asked,) = prompts.seen
            assert str(a / ".mcp.json") in asked.message
            assert offered(llm, "alpha", 0)
            assert offered(llm, "user", 0)
            assert not offered(llm, "beta", 0)
            assert "Repository status" in last_user_message(llm.requests[1])

            await chat(client, "status of B", **about(b / "x.py"))
            assert offered(llm, "beta", 2)
            assert offered(llm, "user", 2)
            assert not offered(llm, "alpha", 2)
            assert "Repository status" in last_user_message(llm.requests[3])
            assert len(prompts.seen) == 1  # B has no .mcp.json: nothing more to trust

            pid = {name: int(path.read_text()) for name, path in pids.items()}
            assert cwd_of(pid["alpha"]) == a  # a folder's server runs in its folder
            assert cwd_of(pid["beta"]) == b
            servers = {s["name"]: s for s in (await status(client))["mcp"]}
            assert servers["alpha"]["folder"] == str(a)
            assert servers["beta"]["folder"] == str(b)
            assert "folder" not in servers["user"]  # the user's own settings
            assert {s["state"] for s in servers.values()} == {"ready"}

            remove(client, b)
            assert gone(pid["beta"]), "the removed folder's server is still running"
            assert alive(pid["alpha"])
            assert [s["name"] for s in (await status(client))["mcp"]] == ["user", "alpha"]
            remove(client, a)
            assert gone(pid["alpha"])
            assert alive(pid["user"])
        assert gone(pid["user"])
