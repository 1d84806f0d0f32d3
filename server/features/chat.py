"""`agent/chat`: run one turn, streaming progress as `agent/chatProgress` and `$/progress`."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from actions.review import StagedPlan
from actions.tools.search_docs import IndexSource
from server.editor import EditorApplier, LspEditor
from server.features.command_consent import EditorGate
from server.features.configuration import settled
from server.features.folders import OpenWorkspace, open_workspace
from server.features.indexing import live
from server.features.review import review_plan, review_progress
from server.history import (
    CorruptSession,
    SessionStore,
    UnknownSession,
    in_store_order,
    save_in_background,
)
from server.lsp import AgentLanguageServer, RequestFailed
from server.protocol import (
    AGENT_CHAT,
    AGENT_CHAT_PROGRESS,
    ChatContext,
    ChatParams,
    ChatProgress,
    ChatResult,
    ErrorProgress,
    ProgressEvent,
    TextDelta,
)
from server.providers import ProviderError
from server.turn_assembly import FrontEnd, run_front_end_turn
from server.turns.turn import AgentError, ChatSession, TurnOutcome
from server.wording import empty_message_problem


class LspSink:
    """Sends every step to the client: always agent/chatProgress, $/progress if asked.

    Text deltas are coalesced: the first one (and any after a quiet spell) goes out at once,
    later ones at most every TEXT_INTERVAL seconds, and pending text is always sent before
    any other kind of step and at the end of the turn, so order and text are kept exactly.
    """

    TEXT_INTERVAL = 0.015

    def __init__(self, ls: AgentLanguageServer, session_id: str, token: int | str | None):
        self.ls = ls
        self.session_id = session_id
        self.token = token
        self._pending: list[str] = []
        self._timer: asyncio.TimerHandle | None = None
        self._last_text = -1.0

    def begin(self) -> None:
        if self.token is not None:
            self.ls.work_done_progress.begin(
                self.token, types.WorkDoneProgressBegin(title="agent-ls", cancellable=True)
            )

    def emit(self, event: ProgressEvent) -> None:
        if isinstance(event, TextDelta):
            if event.delta:
                self._text(event.delta)
            return
        self.flush()
        self._send(event)

    def _text(self, delta: str) -> None:
        self._pending.append(delta)
        if self._timer is not None:
            return
        loop = asyncio.get_running_loop()
        wait = self._last_text + self.TEXT_INTERVAL - loop.time()
        if wait <= 0:
            self.flush()
        else:
            self._timer = loop.call_later(wait, self.flush)

    def flush(self) -> None:
        """Send the text not sent yet (one notification)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._pending:
            text = "".join(self._pending)
            self._pending.clear()
            self._last_text = asyncio.get_running_loop().time()
            self._send(TextDelta(delta=text))

    def _send(self, event: ProgressEvent) -> None:
        self.ls.protocol.notify(
            AGENT_CHAT_PROGRESS, ChatProgress(session_id=self.session_id, event=event)
        )
        if self.token is not None:
            message = event.delta if isinstance(event, TextDelta) else event.kind
            self.ls.work_done_progress.report(
                self.token, types.WorkDoneProgressReport(message=message)
            )

    def end(self, message: str) -> None:
        self.flush()
        if self.token is not None:
            self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))


def register(server: AgentLanguageServer) -> None:
    server.feature(AGENT_CHAT)(chat)


async def chat(ls: AgentLanguageServer, params: Any) -> ChatResult:
    request = ls.typed(params, ChatParams)
    problem = empty_message_problem(request.message)
    if problem is not None:
        raise JsonRpcInvalidParams(f"invalid params: {problem}")
    await settled(ls)
    session = await open_chat(ls, request.session_id)
    sink = LspSink(ls, session.id, request.work_done_token)
    outcome = await editor_turn(ls, session, request.message, request.context, sink)
    return outcome.result(session.id)


async def editor_turn(
    ls: AgentLanguageServer,
    session: ChatSession,
    message: str,
    context: ChatContext | None,
    sink: LspSink,
    on_failure: Callable[[Exception], None] | None = None,
) -> TurnOutcome:
    """One agent turn for an editor (server.turn_assembly): edits through the editor
    (workspace/applyEdit), progress as agent/chatProgress and $/progress, a staged plan in
    the result.

    A provider or agent failure is reported (progress `error`, then `on_failure`) and raised
    as RequestFailed; cancellation propagates (the client gets RequestCancelled).
    """
    root = ls.root()
    sink.begin()
    ending = "cancelled"
    try:
        opened = await open_workspace(ls)
        applier = None
        if opened is not None and root is not None:
            applier = EditorApplier(LspEditor(ls), root, folders=opened.paths())
        front = FrontEnd(
            root,
            opened.folders if opened is not None else (),
            applier,
            sink,
            reviews=True,
            index_source=lambda: live(ls),
            index_sources=index_sources(ls, opened),
            buffers=applier,  # read_file sees the open buffers
            commands=EditorGate(ls),
            tools=EditorGate(ls),
            trust=EditorGate(ls),
        )
        turn = await run_front_end_turn(ls.state, front, session, message, context)
        outcome = turn.outcome
        if turn.staged is not None:
            outcome = staged_outcome(turn.staged, outcome, sink)
        ending = "done"
        save_after_answer(root, session)
    except (ProviderError, AgentError) as exc:
        ending = "failed"
        sink.emit(ErrorProgress(message=str(exc)))
        if on_failure is not None:
            on_failure(exc)
        raise RequestFailed(str(exc)) from None
    finally:
        sink.end(ending)
    return outcome


def save_after_answer(root: Path | None, session: ChatSession) -> None:
    """Store the conversation once the request's answer is on its way (the handler's task
    is done: pygls' callback, registered first, has queued the response): the answer does
    not wait for the disk, and the store thread does not compete with sending it. Listings
    and restores that follow run after the save (server/history.py: in_store_order)."""
    session_id, messages, shown = session.id, list(session.messages), list(session.shown)

    def save() -> None:
        save_in_background(SessionStore(root), session_id, messages, shown)

    task = asyncio.current_task()
    if task is None:
        save()
        return
    loop = asyncio.get_running_loop()
    task.add_done_callback(lambda _: loop.call_soon(save))


def index_sources(
    ls: AgentLanguageServer, opened: OpenWorkspace | None
) -> dict[str, IndexSource] | None:
    """Each folder's live index by folder name (a multi-root workspace), else None."""
    if opened is None or not opened.multi:
        return None
    return {name: functools.partial(live, ls, path) for name, path in opened.paths().items()}


def staged_outcome(staged: StagedPlan, outcome: TurnOutcome, sink: LspSink) -> TurnOutcome:
    """Review mode: the turn's plan is staged; the result and progress carry it pending."""
    sink.emit(review_progress(staged))
    return replace(outcome, plan=review_plan(staged), checkpoint_id=None)


async def open_chat(ls: AgentLanguageServer, session_id: str | None) -> ChatSession:
    """The chat session `session_id` (restored from the workspace's stored conversations
    after a restart), a new one when None; an unknown id is InvalidParams, a stored file
    that cannot be read back RequestFailed naming it."""
    if session_id is None or session_id in ls.state.chats:
        return ls.state.chat(session_id)  # no disk access
    history = SessionStore(ls.root())
    try:
        return await in_store_order(ls.state.chat, session_id, history)
    except CorruptSession as exc:  # the request is right; the stored file is not
        raise RequestFailed(str(exc)) from None
    except UnknownSession as exc:
        raise JsonRpcInvalidParams(f"invalid params: sessionId: {exc}") from None
