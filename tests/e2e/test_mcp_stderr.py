"""A stdio MCP server's stderr: read by agent-ls (not passed raw to its stderr, the editor's
log), each line redacted (the `${VAR}` values of the server's env are secrets) and logged
with the server's name; the last lines shown, redacted, in the error of a failed server in
the status report (`agent-ls doctor --json`: the facts of `agent/status`). The server here
prints its token to stderr, as a careless server does (tests/e2e/mcp_crasher.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.e2e.test_mcp_backoff import CRASHER
from tests.e2e.test_mcp_status import config_file, run_cli

TOKEN = "tok-9f8e7d6c5b4a39281706"


def leaky(count: Path, *flags: str) -> dict[str, object]:
    args = [str(CRASHER), str(count), "0", "--leak", *flags]
    return {"command": sys.executable, "args": args, "env": {"TOKEN": "${CRASHER_TOKEN}"}}


def test_a_servers_stderr_is_logged_redacted_and_shown_when_it_fails(tmp_path: Path) -> None:
    servers = {"talker": leaky(tmp_path / "a"), "broken": leaky(tmp_path / "b", "--fail")}
    path = config_file(tmp_path / "mcp.json", servers)
    report = run_cli(
        "--log-level",
        "info",
        "doctor",
        "--no-check",
        "--json",
        "--workspace",
        str(tmp_path),
        "--mcp-config",
        str(path),
        env={"CRASHER_TOKEN": TOKEN},
    )
    log = report.stderr
    assert "mcp server talker: crasher starting with token" in log  # named, line by line
    assert "mcp server broken: crasher: cannot start" in log
    found = {server["name"]: server for server in json.loads(report.stdout)["mcp"]}
    assert found["talker"]["state"] == "ready"
    broken = found["broken"]
    assert broken["state"] == "failed"
    assert "crasher starting with token" in broken["error"]  # its last lines
    assert "crasher: cannot start" in broken["error"]
    assert TOKEN not in log
    assert TOKEN not in report.stdout
