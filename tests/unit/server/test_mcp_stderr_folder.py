"""A folder's own MCP entries (server/mcp/folder.py) and a stdio server's stderr read line by
line, redacted (server/mcp/stderr.py), with a real child process writing to the pipe."""

from __future__ import annotations

import asyncio
import logging
import sys

import pytest

from server.mcp.folder import folder_only
from server.mcp.stderr import TAIL_LINES, StderrLog
from server.mcp_config import parse_servers
from server.redact import remember

USER = {"git": {"command": "git-mcp"}, "docs": {"url": "https://docs.example/mcp"}}


@pytest.mark.parametrize(
    ("scoped", "own"),
    [
        (USER, []),  # the user's settings answered for the folder: nothing of its own
        (USER | {"db": {"command": "db-mcp"}}, ["db"]),  # merged in (VS Code)
        ({"git": {"command": "git-mcp", "args": ["-v"]}}, ["git"]),  # the folder's own git
        ({}, []),
    ],
)
def test_a_folders_own_entries(scoped: dict[str, object], own: list[str]) -> None:
    user = parse_servers(USER)
    assert [spec.name for spec in folder_only(parse_servers(scoped), user)] == own


async def test_stderr_lines_are_redacted_logged_and_the_last_kept(
    caplog: pytest.LogCaptureFixture,
) -> None:
    secret = "s3cr3t-token-value-4242"
    remember(secret)
    log = StderrLog("leaky")
    script = f"import sys\nfor i in range(8): print('line', i, {secret!r}, file=sys.stderr)"
    with caplog.at_level(logging.INFO, logger="server.mcp.stderr"):
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", script, stderr=log.writer
        )
        log.close_writer()
        await process.wait()
        await log.finish()
    assert len(log.tail) == TAIL_LINES
    assert log.tail[-1].startswith("line 7 ")
    assert all(secret not in line for line in log.tail)
    assert "mcp server leaky: line 0" in caplog.text
    assert secret not in caplog.text
