"""`agent-ls serve --tcp`: the same server over a loopback socket."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from tests.fakellm import FakeLLM

AGENT_LS = str(Path(sys.executable).parent / "agent-ls")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def connect(port: int, proc: subprocess.Popen[bytes]) -> LanguageClient:
    client = LanguageClient("tcp-test", "0")
    for _ in range(200):
        assert proc.poll() is None, "the server exited"
        try:
            await client.start_tcp("127.0.0.1", port)
            return client
        except OSError:
            await asyncio.sleep(0.05)  # the server is still binding its port
    raise AssertionError("could not connect")


async def test_chat_over_tcp(fakellm: FakeLLM) -> None:
    fakellm.set_script({"replies": ["over tcp"]})
    port = free_port()
    proc = subprocess.Popen(
        [AGENT_LS, "serve", "--tcp", "--host", "127.0.0.1", "--port", str(port)]
    )
    try:
        client = await connect(port, proc)
        deltas: list[str] = []
        client.feature("agent/chatProgress")(lambda params: deltas.append(params.delta))
        client.feature("workspace/configuration")(lambda params: [None])
        options = {"agentLs": {"baseUrl": fakellm.base_url_openai, "model": "m"}}
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(), initialization_options=options
            )
        )
        client.initialized(types.InitializedParams())
        result = await client.protocol.send_request_async("agent/chat", {"message": "hi"})
        assert result.text == "over tcp"
        assert "".join(deltas) == "over tcp"
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_accepts_log_level_after_the_sub_command() -> None:
    done = subprocess.run(
        [AGENT_LS, "serve", "--log-level", "DEBUG"],
        input=b"",
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""  # nothing but JSON-RPC may reach stdout, and no request came
