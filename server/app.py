"""build_server(): the language server with every feature, listed here explicitly."""

from __future__ import annotations

from server.features import chat, configuration
from server.lsp import AgentLanguageServer


def build_server() -> AgentLanguageServer:
    server = AgentLanguageServer()
    configuration.register(server)
    chat.register(server)
    return server
