"""MCP's consents in the Neovim plugin, as a person meets them (#26): a real Neovim (Debian's
0.7.2 and the wheel's 0.11) in a tmux pane, a workspace whose `.mcp.json` names
server-everything (npm, `make clients`). The trust prompt and the tool call's consent are
one-line questions of vim.ui.select naming the file and what it runs, the server, the tool
and its arguments (not the plain multi-line message); keys answer them; the echo result
reaches the model or, denied, does not; the chat transcript notes each answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conversations import doc, tool
from tests.e2e.mcp_servers import everything_stdio
from tests.e2e.neovim import neovims
from tests.e2e.test_nvim_commands import neovim_in_tmux, project
from tests.fakellm import FakeLLM, last_user_message

SCRIPT = {
    "replies": [
        tool("mcp__everything__echo", message="hi from nvim"),
        doc(action="text_response", text_response="Echoed."),
    ]
}


@pytest.mark.parametrize("nvim", neovims())
@pytest.mark.parametrize(("key", "echoed"), [("1", True), ("3", False)], ids=["run", "deny"])
def test_trust_then_the_tool_call_are_asked_in_one_line(
    tmp_path: Path, nvim: str, key: str, echoed: bool
) -> None:
    root = project(tmp_path)
    entry = everything_stdio()
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"everything": entry}}))
    runs = " ".join([entry["command"], *entry["args"]])
    with FakeLLM(SCRIPT) as llm, neovim_in_tmux(nvim, tmp_path, root, llm) as screen:
        screen.wait_for("~")
        screen.keys(":AgentChat Echo it", "Enter")
        trust = screen.wait_for(
            f"agent-ls: trust the MCP servers of {root}/.mcp.json?  They run  everything: ",
            "1: Trust (start its servers; asked again when the file changes)",
            "2: Deny",
        )
        # what it runs, as Neovim wraps the long line at the screen's width
        assert runs in "".join(trust.splitlines())
        screen.keys("1", "Enter")
        asked = screen.wait_for(
            'agent-ls: call the MCP tool  echo  of everything with {"message": "hi from nvim"}?'
        )
        assert "2: Always allow (this tool of this server, for the rest of the session)" in asked
        assert "3: Deny" in asked
        screen.keys(key, "Enter")
        chat = screen.wait_for("Echoed.")
        sent = last_user_message(llm.requests[-1])
    assert "⚑ Trust" in chat
    assert ("⚑ Run" if echoed else "⚑ Deny") in chat
    assert ("Echo: hi from nvim" in sent) is echoed
