"""The editor plugins recognise agent-ls' consents by their `agentLs` kind and exact titles (a
server older than `agentLs`: the command's by its words): the Neovim plugin's copy of them
(nvim-client/lua/agent_ls/commands.lua) must say what the server sends (server/protocol.py;
the VS Code client imports them from the generated protocol.ts)."""

from __future__ import annotations

import json
from pathlib import Path

from server import protocol
from server.features.command_consent import CHOICES, DENY_TRUST, TRUST

LUA = Path(__file__).resolve().parents[2] / "nvim-client/lua/agent_ls/commands.lua"


def test_the_neovim_plugin_knows_the_consent_prefix_and_titles() -> None:
    source = LUA.read_text()
    assert f"M.PREFIX = {json.dumps(protocol.CONSENT_PREFIX)}" in source
    titles = ", ".join(json.dumps(t) for t in CHOICES)
    assert f"M.TITLES = {{ {titles} }}" in source
    trust = ", ".join(json.dumps(t) for t in (TRUST, DENY_TRUST))
    assert f"M.TRUST_TITLES = {{ {trust} }}" in source


def test_the_server_offers_the_titles_in_that_order() -> None:
    assert list(CHOICES) == [protocol.CONSENT_RUN, protocol.CONSENT_ALWAYS, protocol.CONSENT_DENY]
