"""`agent-ls serve --tcp`: the same server over a loopback socket."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
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


async def start_client(port: int, proc: subprocess.Popen[bytes], llm: FakeLLM, model: str) -> Any:
    client = await connect(port, proc)
    client.feature("agent/chatProgress")(lambda params: None)
    client.feature("workspace/configuration")(lambda params: [None])
    options = {"agentLs": {"baseUrl": llm.base_url_openai, "model": model}}
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(), initialization_options=options
        )
    )
    client.initialized(types.InitializedParams())
    return client


async def leave(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


async def test_serves_clients_one_after_another_and_at_once(fakellm: FakeLLM) -> None:
    fakellm.set_script({"replies": ["answer"]})
    port = free_port()
    proc = subprocess.Popen(
        [AGENT_LS, "serve", "--tcp", "--host", "127.0.0.1", "--port", str(port)],
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    banner = await asyncio.to_thread(proc.stderr.readline)  # the server is bound once it says so
    assert f"listening on 127.0.0.1:{port}" in banner.decode()
    try:
        first = await start_client(port, proc, fakellm, "model-a")
        one = await first.protocol.send_request_async("agent/chat", {"message": "hi"})
        await leave(first)
        second = await start_client(port, proc, fakellm, "model-b")
        assert proc.poll() is None, "the server exited after its first client"
        two = await second.protocol.send_request_async("agent/chat", {"message": "hi"})
        assert fakellm.requests[-1].body["model"] == "model-b"
        third = await start_client(port, proc, fakellm, "model-c")  # while second is connected
        three, again = await asyncio.gather(
            third.protocol.send_request_async("agent/chat", {"message": "hi"}),
            second.protocol.send_request_async(
                "agent/chat", {"message": "more", "sessionId": two.sessionId}
            ),
        )
        models = sorted(r.body["model"] for r in fakellm.requests[-2:])
        assert models == ["model-b", "model-c"]  # each client keeps its own settings
        assert {one.text, two.text, three.text, again.text} == {"answer"}
        assert again.sessionId == two.sessionId
        with pytest.raises(JsonRpcInvalidParams, match="unknown session"):
            # sessions belong to their connection's state (until stored: none here)
            await third.protocol.send_request_async(
                "agent/chat", {"message": "x", "sessionId": "not-a-session"}
            )
        await leave(second)
        await leave(third)
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.communicate(timeout=20)
