"""A stdio MCP server that crashes again and again (tests/e2e/mcp_crasher.py): restarted at
once after a first crash, then at the next call no sooner than 1, 2, 4 ... s after the last
failure; the model is told each time (restarting, gave up until when), a call in between
fails at once without starting anything (no busy loop), and `agent/status` shows the
failures in a row and the delay. No timed assertion: the test waits the delay the status
states before the next call."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from pytest_lsp import LanguageClient

from tests.e2e.conftest import chat
from tests.e2e.conversations import doc, tool
from tests.e2e.test_mcp_status import configure, status
from tests.fakellm import FakeLLM, last_user_message

CRASHER = Path(__file__).with_name("mcp_crasher.py")
WORK = tool("mcp__crasher__work")


def answer(text: str) -> str:
    return doc(action="text_response", text_response=text)


async def crasher_status(client: LanguageClient) -> dict[str, object]:
    (server,) = (await status(client))["mcp"]
    assert server["name"] == "crasher"
    return dict(server)


async def test_a_crashing_server_is_restarted_with_a_growing_delay(
    client: LanguageClient, fakellm: FakeLLM, tmp_path: Path
) -> None:
    count = tmp_path / "calls"
    entry = {"command": sys.executable, "args": [str(CRASHER), str(count), "1"], "allow": "*"}
    configure(client, {"crasher": entry})
    fakellm.set_script({"replies": [WORK, WORK, answer("first"), WORK, WORK, answer("second")]})

    first = await chat(client, "work twice")
    assert "work done (1)" in last_user_message(fakellm.requests[1])
    crashed = last_user_message(fakellm.requests[2])
    assert "the MCP server crasher had stopped" in crashed  # the first crash: at once
    assert "restarting it: it was restarted" in crashed
    assert "stopped during the call; 2 failures in a row: gave up until" in crashed
    assert "(a new start 1 s after the last failure)" in crashed
    assert count.read_text() == "3"  # the answered call, the crash, the crash after restart
    server = await crasher_status(client)
    assert (server["state"], server["failures"], server["retryDelay"]) == ("failed", 2, 1.0)
    assert "crasher: call 3: crashing" in str(server["error"])  # its stderr's last line

    await asyncio.sleep(float(server["retryDelay"]))  # type: ignore[arg-type]
    await chat(client, "work again", sessionId=first["sessionId"])
    again = last_user_message(fakellm.requests[4])
    assert "restarting it: it was restarted" in again  # the delay had passed
    assert "3 failures in a row: gave up until" in again
    assert "(a new start 2 s after the last failure)" in again
    waiting = last_user_message(fakellm.requests[5])  # a call within the delay
    assert "is down" in waiting
    assert "3 failures in a row: gave up until" in waiting
    assert count.read_text() == "4"  # that call started nothing
    server = await crasher_status(client)
    assert (server["state"], server["failures"], server["retryDelay"]) == ("failed", 3, 2.0)
