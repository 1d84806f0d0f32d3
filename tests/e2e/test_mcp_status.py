"""The MCP servers' state where the user looks: a dead server failed with its reason in
`agent/status` while chat goes on with the others; a server left out of the settings, and
every server at `shutdown`, stopped with no process left; `agent-ls mcp list [--json]` and
`agent-ls doctor` with `--mcp-config`; a bad entry is a setting problem naming it."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

from server.protocol import AGENT_STATUS
from tests.e2e.conftest import as_dict, chat
from tests.e2e.conversations import doc, tool
from tests.fakellm import FakeLLM, last_user_message

PIDFILE_SERVER = "echo $$ > {pidfile}; exec {python} -m mcp_server_git"


def answer(text: str) -> str:
    return doc(action="text_response", text_response=text)


def configure(client: LanguageClient, servers: dict[str, Any]) -> None:
    client.set_configuration({"mcpServers": servers}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))


async def status(client: LanguageClient) -> dict[str, Any]:
    request = client.protocol.send_request_async  # untyped in pygls
    report: dict[str, Any] = as_dict(await request(AGENT_STATUS, {"check": False}))  # type: ignore[no-untyped-call]
    return report


def git_server(pidfile: Path) -> dict[str, Any]:
    """mcp-server-git started by a shell that writes the server's pid first."""
    line = PIDFILE_SERVER.format(pidfile=pidfile, python=sys.executable)
    return {"command": "/bin/sh", "args": ["-c", line], "allow": "*"}


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False


def gone(pid: int) -> bool:
    """Whether the process is gone (waits a few seconds for the kernel to reap it)."""
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


async def test_a_dead_server_fails_in_status_while_chat_goes_on(
    client: LanguageClient, fakellm: FakeLLM, tmp_path: Path
) -> None:
    pidfile = tmp_path / "git.pid"
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    configure(
        client, {"dead": {"command": str(tmp_path / "no-such-server")}, "git": git_server(pidfile)}
    )
    fakellm.set_script(
        {"replies": [tool("mcp__git__git_status", repo_path=str(tmp_path)), answer("fine")]}
    )
    result = await chat(client, "hello")
    assert result["text"] == "fine"
    assert "Repository status" in last_user_message(fakellm.requests[1])  # the tool ran
    offered = str(fakellm.requests[0])
    assert "mcp__git__git_status" in offered
    assert "mcp__dead__" not in offered
    report = await status(client)
    servers = {server["name"]: server for server in report["mcp"]}
    assert servers["dead"]["state"] == "failed"
    assert "command not found" in servers["dead"]["error"]
    assert servers["dead"]["transport"] == "stdio"
    assert servers["git"]["state"] == "ready"
    assert "git_log" in servers["git"]["tools"]


async def test_a_server_left_out_of_the_settings_and_all_at_shutdown_are_stopped(
    client: LanguageClient, fakellm: FakeLLM, tmp_path: Path
) -> None:
    first, second = tmp_path / "first.pid", tmp_path / "second.pid"
    configure(client, {"first": git_server(first), "second": git_server(second)})
    fakellm.set_script({"replies": [answer("one")]})
    await chat(client, "hello")  # waits for the servers to start
    first_pid, second_pid = int(first.read_text()), int(second.read_text())
    assert alive(first_pid)
    assert alive(second_pid)
    configure(client, {"second": git_server(second)})
    await status(client)  # the new settings are in force
    assert gone(first_pid), "the server left out of the settings is still running"
    assert alive(second_pid)


async def test_shutdown_stops_every_server_before_it_answers(tmp_path: Path) -> None:
    pidfile = tmp_path / "git.pid"
    client = make_test_lsp_client()
    await client.start_io(sys.executable, "-m", "server")
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=tmp_path.as_uri(),
                initialization_options={"agentLs": {"mcpServers": {"git": git_server(pidfile)}}},
            )
        )
        while (await status(client))["mcp"][0]["state"] == "starting":
            await asyncio.sleep(0.1)
        pid = int(pidfile.read_text())
        assert alive(pid)
        await client.shutdown_async(None)
        assert not alive(pid), "an MCP server survived shutdown"
    finally:
        client.exit(None)
        await client.stop()


AGENT_LS = str(Path(sys.executable).with_name("agent-ls"))


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env=os.environ | (env or {}),
    )


def config_file(path: Path, servers: dict[str, Any]) -> Path:
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def test_mcp_list_starts_each_server_and_lists_its_tools(tmp_path: Path) -> None:
    servers = {
        "git": {"command": sys.executable, "args": ["-m", "mcp_server_git"]},
        "dead": {"command": str(tmp_path / "no-such-server")},
    }
    path = config_file(tmp_path / "mcp.json", servers)
    listed = run_cli("mcp", "list", "--json", "--mcp-config", str(path))
    assert listed.returncode == 1, listed.stderr  # one server failed
    found = {server["name"]: server for server in json.loads(listed.stdout)}
    assert found["git"]["state"] == "ready"
    assert "git_status" in found["git"]["tools"]
    assert found["dead"]["state"] == "failed"
    text = run_cli("mcp", "list", env={"AGENT_LS_MCP_CONFIG": str(path)})
    assert "git (stdio): ready" in text.stdout
    assert "  git_log" in text.stdout
    assert "dead (stdio): failed: command not found" in text.stdout


def test_a_bad_entry_is_a_setting_problem_naming_it(tmp_path: Path) -> None:
    path = config_file(tmp_path / "mcp.json", {"broken": {"command": "x", "url": "http://h/"}})
    listed = run_cli("mcp", "list", "--mcp-config", str(path))
    assert listed.returncode == 2
    assert 'server "broken"' in listed.stderr
    assert 'exactly one of "command" (stdio) or "url" (HTTP)' in listed.stderr


def test_doctor_shows_the_servers(tmp_path: Path) -> None:
    servers = {"git": {"command": sys.executable, "args": ["-m", "mcp_server_git"]}}
    path = config_file(tmp_path / "mcp.json", servers)
    report = run_cli(
        "doctor", "--no-check", "--json", "--workspace", str(tmp_path), "--mcp-config", str(path)
    )
    (git,) = json.loads(report.stdout)["mcp"]
    assert git["name"] == "git"
    assert git["state"] == "ready"
    assert "git_status" in git["tools"]


async def test_a_crashed_server_is_restarted_at_the_next_call_and_the_model_told(
    client: LanguageClient, fakellm: FakeLLM, tmp_path: Path
) -> None:
    pidfile = tmp_path / "git.pid"
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    configure(client, {"git": git_server(pidfile)})
    status_call = tool("mcp__git__git_status", repo_path=str(tmp_path))
    fakellm.set_script({"replies": [answer("started"), status_call, answer("done")]})
    first = await chat(client, "hello")  # the server is running
    crashed = int(pidfile.read_text())
    os.kill(crashed, signal.SIGKILL)
    assert gone(crashed)
    await chat(client, "status please", sessionId=first["sessionId"])
    sent = last_user_message(fakellm.requests[-1])
    assert "the MCP server git had stopped" in sent
    assert "it was restarted" in sent
    assert "Repository status" in sent
    assert int(pidfile.read_text()) != crashed
    servers = (await status(client))["mcp"]
    assert servers[0]["state"] == "ready"
