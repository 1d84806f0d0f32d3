"""`textDocument/didOpen|didChange|didClose`: pygls keeps the text; we wake edit waiters.

An edit sent through workspace/applyEdit comes back as a didChange, sometimes after the
client answered the request: the editor applier waits on `document_changed` for it.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from server.lsp import AgentLanguageServer


def register(server: AgentLanguageServer) -> None:
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(notify_change)
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(notify_change)
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(notify_change)


async def notify_change(ls: AgentLanguageServer, params: Any) -> None:
    async with ls.document_changed:
        ls.document_changed.notify_all()
