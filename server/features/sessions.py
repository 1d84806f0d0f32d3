"""`agent/sessions`: the workspace's stored conversations, newest first; `{delete: id}`
removes one first (an unknown id is InvalidParams); `{show: id}`: that one's entry carries its
`conversation` as the user saw it (server.conversation: their messages, the answers, tool
calls, plans and files; never a document or agent-ls' instructions to the model), for a
client showing a resumed chat. A listed id continues with `agent/chat`
`{sessionId}`, also after a restart. A stored file that cannot be read back is listed with
`corrupt` naming it and why; it is never deleted or overwritten by the server."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import attrs
from pygls.exceptions import JsonRpcInvalidParams

from server.history import (
    CorruptSession,
    SessionInfo,
    SessionStore,
    UnknownSession,
    in_store_order,
)
from server.lsp import AgentLanguageServer, RequestFailed
from server.protocol import AGENT_SESSIONS, SessionEntry, SessionsParams


def register(server: AgentLanguageServer) -> None:
    server.feature(AGENT_SESSIONS)(sessions)


def session_entry(info: SessionInfo) -> SessionEntry:
    updated = datetime.fromtimestamp(info.updated, tz=UTC).isoformat(timespec="seconds")
    return SessionEntry(
        id=info.id, title=info.title, updated=updated, turns=info.turns, corrupt=info.corrupt
    )


async def sessions(ls: AgentLanguageServer, params: Any) -> list[SessionEntry]:
    request = ls.typed(params if params is not None else {}, SessionsParams)
    store = SessionStore(ls.root())
    if request.delete is not None:
        try:
            await in_store_order(store.delete, request.delete)
        except UnknownSession as exc:
            raise JsonRpcInvalidParams(f"invalid params: delete: {exc}") from None
        ls.state.chats.pop(request.delete, None)
    infos = await in_store_order(store.list)
    entries = [session_entry(info) for info in infos]
    if request.show is None:
        return entries
    try:
        shown = (await in_store_order(store.load_chat, request.show)).shown
    except CorruptSession as exc:  # the request is right; the stored file is not
        raise RequestFailed(str(exc)) from None
    except UnknownSession as exc:
        raise JsonRpcInvalidParams(f"invalid params: show: {exc}") from None
    return [attrs.evolve(e, conversation=shown) if e.id == request.show else e for e in entries]
