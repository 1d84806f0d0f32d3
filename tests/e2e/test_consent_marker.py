"""The consent requests carry `agentLs`, what is asked, typed (server/protocol.py
`ConsentRequestParams`): read off the wire as an editor receives them (a raw client, since
pytest-lsp's client keeps only the LSP fields). A shell command (its message unchanged for
the editors that show the plain prompt), an MCP tool call of server-everything, a project's
`.mcp.json`; the answer still decides what runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from server.protocol import CONSENT_PREFIX
from tests.e2e.conversations import doc, tool
from tests.e2e.mcp_servers import everything_stdio
from tests.e2e.rawclient import RawClient
from tests.fakellm import FakeLLM, last_user_message


def answer(text: str) -> str:
    return doc(action="text_response", text_response=text)


class Editor(RawClient):
    """A raw client that answers each window/showMessageRequest with the next title."""

    titles: list[str | None]
    asked: list[dict[str, Any]]

    def _answer(self, request: dict[str, Any]) -> Any:
        if request["method"] != "window/showMessageRequest":
            return super()._answer(request)
        self.asked.append(request["params"])
        title = self.titles.pop(0)
        return None if title is None else {"title": title}


async def editor(root: Path, titles: list[str | None], settings: dict[str, Any]) -> Editor:
    client = await Editor.start(cwd=root, env={"XDG_STATE_HOME": str(root.parent / "state")})
    client.titles, client.asked = titles, []
    await client.initialize(root, settings)
    return client


async def chat(client: Editor, message: str) -> dict[str, Any]:
    answer = await client.request("agent/chat", {"message": message}, timeout=90)
    assert "result" in answer, answer
    return answer


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def base(fakellm: FakeLLM) -> dict[str, Any]:
    return {"baseUrl": fakellm.base_url_openai, "model": "fake", "retryBaseDelay": 0.05}


async def test_a_command_consent_names_the_line_and_folder(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    root = workspace(tmp_path)
    fakellm.set_script({"replies": [tool("run_command", command="touch made.txt"), answer("ok")]})
    client = await editor(root, ["Run"], base(fakellm))
    await chat(client, "make a file")
    (asked,) = client.asked
    folder = f"/ ({root})"
    assert asked["agentLs"] == {"kind": "command", "command": "touch made.txt", "folder": folder}
    assert asked["message"] == f"{CONSENT_PREFIX}{folder}:\n\ntouch made.txt"  # unchanged
    assert asked["type"] == 2
    assert [a["title"] for a in asked["actions"]] == ["Run", "Always allow", "Deny"]
    assert (root / "made.txt").exists()
    await client.close()


async def test_an_mcp_tool_consent_names_server_tool_and_arguments(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    root = workspace(tmp_path)
    settings = base(fakellm) | {"mcpServers": {"everything": everything_stdio()}}
    call = tool("mcp__everything__echo", message="marked")
    fakellm.set_script({"replies": [call, call, answer("done")]})
    client = await editor(root, ["Deny", "Run"], settings)
    await chat(client, "echo it twice")
    first, second = client.asked
    marker = {
        "kind": "mcp_tool",
        "server": "everything",
        "tool": "echo",
        "arguments": json.dumps({"message": "marked"}),
    }
    assert first["agentLs"] == second["agentLs"] == marker
    assert [a["title"] for a in first["actions"]] == ["Run", "Always allow", "Deny"]
    assert first["message"].startswith("agent-ls: the model wants to call the tool echo")
    denied, ran = (last_user_message(r) for r in fakellm.requests[1:3])
    assert "Echo: marked" not in denied
    assert "Echo: marked" in ran
    await client.close()


async def test_the_trust_prompt_names_the_file_and_what_each_server_runs(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    root = workspace(tmp_path)
    entry = everything_stdio(allow="*")
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"everything": entry}}))
    call = tool("mcp__everything__echo", message="trusted")
    fakellm.set_script({"replies": [call, answer("done")]})
    client = await editor(root, ["Trust"], base(fakellm))
    await chat(client, "echo it")
    (asked,) = client.asked
    runs = " ".join([entry["command"], *entry["args"]])
    assert asked["agentLs"] == {
        "kind": "mcp_trust",
        "path": str(root / ".mcp.json"),
        "servers": [{"name": "everything", "runs": runs}],
    }
    assert [a["title"] for a in asked["actions"]] == ["Trust", "Deny"]
    assert "Trust the MCP servers of .mcp.json?" in asked["message"]
    assert "Echo: trusted" in last_user_message(fakellm.requests[1])
    await asyncio.wait_for(client.close(), 30)
