"""build_server(): the language server with every feature, listed here explicitly."""

from __future__ import annotations

from server.features import (
    chat,
    checkpoints,
    code_actions,
    configuration,
    documents,
    folders,
    indexing,
    review,
    search,
    sessions,
    status,
)
from server.lsp import AgentLanguageServer


def build_server() -> AgentLanguageServer:
    server = AgentLanguageServer()
    configuration.register(server)
    documents.register(server)
    folders.register(server)
    chat.register(server)
    checkpoints.register(server)
    code_actions.register(server)
    indexing.register(server)
    search.register(server)
    status.register(server)
    sessions.register(server)
    review.register(server)
    return server
