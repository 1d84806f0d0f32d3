"""The real MCP servers the tests drive: `@modelcontextprotocol/server-everything` (npm,
installed by `make clients` into tests/clients/node_modules) over stdio or Streamable HTTP.
Missing, a test fails under CI=true and is skipped otherwise."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
EVERYTHING = (
    REPO / "tests/clients/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
)


def require_everything() -> list[str]:
    """The command that runs server-everything (transport argument to add)."""
    node = shutil.which("node")
    if EVERYTHING.exists() and node:
        return [node, str(EVERYTHING)]
    reason = f"server-everything is not installed at {EVERYTHING} (run `make clients`)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(reason)
    pytest.skip(reason)


def everything_stdio(**entry: Any) -> dict[str, Any]:
    """An `mcpServers` entry running server-everything over stdio."""
    node, script = require_everything()
    return {"command": node, "args": [script, "stdio"]} | entry


@contextmanager
def everything_http() -> Iterator[str]:
    """server-everything over Streamable HTTP on a free loopback port; yields its /mcp URL."""
    command = require_everything()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = os.environ | {"PORT": str(port)}
    process = subprocess.Popen(
        [*command, "streamableHttp"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:  # waits for the server's own "listening" line
            if "listening" in line.lower():
                break
        else:
            pytest.fail("server-everything (HTTP) did not start")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
