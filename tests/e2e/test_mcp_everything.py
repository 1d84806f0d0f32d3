"""MCP over LSP against `@modelcontextprotocol/server-everything` (npm), over stdio and over
Streamable HTTP: its echo and get-sum tools, an error result (isError), an image as a
one-line placeholder, a slow tool cancelled at `mcpTimeout` with the server still usable, the
tool it adds once initialized offered, the tools offered in the native and xml protocols."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.e2e.conftest import cancel, chat, start_chat
from tests.e2e.conversations import doc, tool
from tests.e2e.mcp_servers import REPO, everything_http, everything_stdio
from tests.fakellm import FakeLLM, last_user_message


def answer(text: str) -> str:
    return doc(action="text_response", text_response=text)


def configure(client: LanguageClient, servers: dict[str, Any], **settings: Any) -> None:
    client.set_configuration({"mcpServers": servers, **settings}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))


def tool_results(fakellm: FakeLLM) -> list[str]:
    """What the model read after each of its replies (the tool results, in order)."""
    return [last_user_message(request) for request in fakellm.requests[1:]]


async def echo_and_sum(client: LanguageClient, fakellm: FakeLLM) -> None:
    fakellm.set_script(
        {
            "replies": [
                tool("mcp__everything__echo", message="hello from the model"),
                tool("mcp__everything__get-sum", a=2, b=40),
                answer("done"),
            ]
        }
    )
    await chat(client, "use the tools")
    echoed, summed = tool_results(fakellm)
    assert "Echo: hello from the model" in echoed
    assert "The sum of 2 and 40 is 42." in summed


async def test_echo_and_sum_over_stdio(client: LanguageClient, fakellm: FakeLLM) -> None:
    configure(client, {"everything": everything_stdio(allow="*")})
    await echo_and_sum(client, fakellm)


async def test_echo_and_sum_over_streamable_http(client: LanguageClient, fakellm: FakeLLM) -> None:
    with everything_http() as url:
        configure(client, {"everything": {"url": url, "allow": ["echo", "get-sum"]}})
        await echo_and_sum(client, fakellm)


async def test_an_error_result_and_an_image_reach_the_model_as_such(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    # The server refuses any domain but this one (its own env, given in the entry).
    entry = everything_stdio(allow="*", env={"GZIP_ALLOWED_DOMAINS": "allowed.invalid"})
    configure(client, {"everything": entry})
    fakellm.set_script(
        {
            "replies": [
                tool("mcp__everything__gzip-file-as-resource", data="http://127.0.0.1:9/x"),
                tool("mcp__everything__get-tiny-image"),
                answer("done"),
            ]
        }
    )
    await chat(client, "compress it, then show the image")
    refused, image = tool_results(fakellm)
    assert "not in the allowed domains list" in refused
    assert "error" in refused.lower()
    assert "[image image/png," in image
    assert "bytes]" in image
    assert "iVBORw0KGgo" not in image  # the base64 never reaches the model


async def test_a_slow_tool_is_cancelled_at_the_time_limit_and_the_server_goes_on(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    configure(client, {"everything": everything_stdio(allow="*")}, mcpTimeout=1)
    fakellm.set_script(
        {
            "replies": [
                tool("mcp__everything__trigger-long-running-operation", duration=300, steps=2),
                tool("mcp__everything__echo", message="still here"),
                answer("done"),
            ]
        }
    )
    await chat(client, "run the long operation")
    slow, echoed = tool_results(fakellm)
    assert "no result within 1 s (mcpTimeout); cancelled" in slow
    assert "Echo: still here" in echoed


async def test_the_tool_added_after_initialization_is_offered(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    """server-everything adds `simulate-research-query` once initialized (and says so with
    notifications/tools/list_changed, which usually arrives before the first listing)."""
    configure(client, {"everything": everything_stdio(allow="*")})
    fakellm.set_script({"replies": [answer("one"), answer("two")]})
    first = await chat(client, "hello")
    await chat(client, "again", sessionId=first["sessionId"])
    assert "mcp__everything__simulate-research-query" in str(fakellm.requests[-1])


@pytest.mark.parametrize("protocol", ["native", "xml"])
async def test_the_tools_are_offered_in_every_tool_protocol(
    client: LanguageClient, fakellm: FakeLLM, protocol: str
) -> None:
    configure(client, {"everything": everything_stdio()}, toolProtocol=protocol)
    fakellm.set_script({"replies": [answer("hi")]})
    await chat(client, "hello")
    offered = str(fakellm.requests[0])
    assert "mcp__everything__get-sum" in offered
    assert "Returns the sum of two numbers" in offered


async def test_a_tool_added_by_a_list_change_is_offered_next_turn(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    """The 2026-07-28 revision: the change arrives on the `subscriptions/listen` stream."""
    server = {"command": sys.executable, "args": ["-m", "tests.e2e.mcp_unlocking_server"]}
    configure(client, {"dyn": server | {"allow": "*", "cwd": str(REPO)}})
    fakellm.set_script(
        {
            "replies": [
                tool("mcp__dyn__unlock"),
                answer("unlocked"),
                tool("mcp__dyn__secret"),
                answer("done"),
            ]
        }
    )
    first = await chat(client, "unlock")
    assert "mcp__dyn__secret" not in str(fakellm.requests[0])
    await chat(client, "the secret?", sessionId=first["sessionId"])
    assert "mcp__dyn__secret" in str(fakellm.requests[2])
    assert "31337" in last_user_message(fakellm.requests[3])


async def test_cancelling_the_turn_cancels_the_call_on_the_server(
    client: LanguageClient, fakellm: FakeLLM, tmp_path: Path
) -> None:
    marker = tmp_path / "cancelled.txt"
    server = {"command": sys.executable, "args": ["-m", "tests.e2e.mcp_unlocking_server"]}
    configure(client, {"dyn": server | {"allow": "*", "cwd": str(REPO)}})
    fakellm.set_script({"replies": [tool("mcp__dyn__wait", marker=str(marker)), answer("no")]})
    request = start_chat(client, "wait", "chat-with-a-slow-tool")
    await client.chat.wait_for(  # type: ignore[attr-defined]
        lambda items: any(item["kind"] == "tool_call" for item in items)
    )
    cancel(client, "chat-with-a-slow-tool")
    with pytest.raises(JsonRpcException):
        await request
    deadline = time.monotonic() + 20
    while not _text(marker) and time.monotonic() < deadline:  # (created, then written)
        await asyncio.sleep(0.05)
    assert _text(marker) == "cancelled"  # the server got notifications/cancelled


def _text(path: Path) -> str:
    """The file's text; '' while it does not exist."""
    return path.read_text() if path.exists() else ""
