"""The ACP agent: `initialize`, `session/new|load|list|close`, `session/set_config_option`
(review on/off per session: server.acp.session_config), `session/prompt`, `session/cancel`;
the MCP servers a client passes run for their session (server.acp.mcp).

The same agent core as the LSP server and the `chat` command: a turn is assembled by
`server.turn_assembly.run_front_end_turn` (provider, review staging, tools, plans,
checkpoints, the `cli` provider's recording, the loop). Only the edges differ: progress
goes out as `session/update` (server.acp.updates), plan files go through the client's file
system when it has one (server.acp.files), a staged plan is reviewed file by file.

Undo / redo / checkpoints: the slash commands `/undo`, `/redo`, `/checkpoints` (offered as
available commands) and the extension methods `_agentls/undo`, `_agentls/redo`,
`_agentls/checkpoints` (params `{sessionId, force?}`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import attrs
from acp import (
    PROTOCOL_VERSION,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    update_agent_message_text,
)
from acp.schema import (
    AgentCapabilities,
    AvailableCommand,
    AvailableCommandsUpdate,
    ClientCapabilities,
    CloseSessionResponse,
    Implementation,
    ListSessionsResponse,
    McpCapabilities,
    PromptCapabilities,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SetSessionConfigOptionResponse,
)
from pygls.exceptions import JsonRpcInvalidParams

from server import __version__
from server.acp.commands import AcpCommandGate, terminal_runner
from server.acp.files import AcpApplier, AcpBuffers
from server.acp.history_commands import checkpoint_command
from server.acp.mcp import AcpToolGate, start_session_servers
from server.acp.prompt_text import attached_file, prompt_text, typed_text
from server.acp.replay import replay
from server.acp.review import review_plan
from server.acp.session_config import config_options, config_update, review_value
from server.acp.updates import UpdateSink
from server.arguments import camel_case, decode, strict
from server.conversation import Recorder
from server.history import CorruptSession, SessionStore, UnknownSession
from server.mcp.manager import McpManager
from server.protocol import ErrorProgress, make_converter
from server.providers import ProviderError
from server.state import ServerState
from server.turn_assembly import FrontEnd, run_front_end_turn
from server.turns.turn import AgentError, ChatSession

log = logging.getLogger(__name__)

COMMANDS = {
    "undo": "Undo the last applied plan (add 'force' to overwrite changes made since)",
    "redo": "Re-apply the last undone plan",
    "checkpoints": "List the applied and undone plans",
}


@attrs.frozen(kw_only=True)
class HistoryParams:
    """`_agentls/undo|redo|checkpoints {sessionId, force?}`."""

    session_id: str
    force: bool = False


EXT_PARAMS = strict(make_converter())
camel_case(EXT_PARAMS, HistoryParams)


def invalid_params(field: str, problem: str) -> RequestError:
    """InvalidParams whose message says what is wrong (clients show the message)."""
    return RequestError(-32602, f"invalid params: {field}: {problem}", {field: problem})


def unknown_session(session_id: str, hint: str) -> RequestError:
    """ACP's resource-not-found (-32002, `RequestError.resource_not_found`'s code; clients fall
    back on it, e.g. to session/new), with a message that names the id and what to do."""
    message = f"unknown session {session_id!r}: {hint}"
    return RequestError(-32002, message, {"sessionId": session_id})


@dataclass
class AcpSession:
    id: str
    root: Path
    chat: ChatSession
    history: SessionStore
    review: bool = False  # its `review` config option (from the setting at first)
    turn: asyncio.Task[Any] | None = None
    cancelled: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    mcp: McpManager | None = None  # the MCP servers the client passed (server.acp.mcp)


class AgentLsAcp:
    """One ACP connection: its sessions and the client it talks to."""

    def __init__(self, state: ServerState | None = None) -> None:
        self.state = state or ServerState.from_environment()[0]
        self.client: Any = None
        self.capabilities = ClientCapabilities()
        self.sessions: dict[str, AcpSession] = {}

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.capabilities = client_capabilities or ClientCapabilities()
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(embedded_context=True),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
                mcp_capabilities=McpCapabilities(http=True),
            ),
            agent_info=Implementation(name="agent-ls", title="agent-ls", version=__version__),
        )

    # -- sessions --------------------------------------------------------------------------
    def _open(self, cwd: str, session_id: str) -> AcpSession:
        root = Path(cwd)
        if not root.is_absolute() or not root.is_dir():
            raise invalid_params("cwd", f"{cwd!r} is not an absolute path to a folder")
        config, _ = self.state.config()
        session = AcpSession(
            session_id,
            root.resolve(),
            ChatSession(session_id),
            SessionStore(root),
            review=config.review == "on",
        )
        self.sessions[session_id] = session
        return session

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        """A session exists from here on: it is stored (empty), so another agent process can
        session/load it before its first prompt (acpx runs each prompt in a new process)."""
        session = self._open(cwd, uuid.uuid4().hex[:12])
        session.mcp = start_session_servers(kwargs.get("mcp_servers"))
        try:
            await asyncio.to_thread(session.history.save, session.id, [])
        except OSError as error:  # disk full...: the session works here, as after a turn
            where = session.history.directory
            log.warning(
                "the new session %s could not be stored in %s: %s", session.id, where, error
            )
        self._announce_commands(session.id)
        return NewSessionResponse(
            session_id=session.id, config_options=list(config_options(session.review))
        )

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> LoadSessionResponse:
        await self._stop_servers(session_id)  # loaded again: its servers are the new ones
        session = self._open(cwd, session_id)
        try:
            stored = await asyncio.to_thread(session.history.load_chat, session_id)
        except CorruptSession as exc:  # the id is known; its file names what is wrong
            del self.sessions[session_id]
            raise invalid_params("sessionId", str(exc)) from None
        except UnknownSession:
            del self.sessions[session_id]
            hint = "no such conversation in this workspace; use session/new"
            raise unknown_session(session_id, hint) from None
        session.chat.messages = stored.messages
        session.chat.shown = stored.shown
        session.mcp = start_session_servers(kwargs.get("mcp_servers"))
        sink = UpdateSink(self.client, session_id)
        for update in replay(stored.shown, session.root):  # what the user saw (server.acp.replay)
            sink.send(update)
        await sink.close()
        self._announce_commands(session_id)
        return LoadSessionResponse(config_options=list(config_options(session.review)))

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        """The session ends here: its turn is cancelled and its MCP servers stopped (ACP's
        unstable `session/close`; not advertised: in ACP v1 a session ends with the
        connection, see `close`)."""
        await self.cancel(session_id)
        await self._stop_servers(session_id)
        self.sessions.pop(session_id, None)
        return CloseSessionResponse()

    async def close(self) -> None:
        """The connection ended: every session's MCP servers, and the configured ones, stop."""
        for session_id in list(self.sessions):
            await self._stop_servers(session_id)
        await self.state.close_mcp()

    async def _stop_servers(self, session_id: str) -> None:
        session = self.sessions.get(session_id)
        if session is not None and session.mcp is not None:
            manager, session.mcp = session.mcp, None
            await manager.close()

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        if cwd is None:
            return ListSessionsResponse(sessions=[])
        infos = await asyncio.to_thread(SessionStore(Path(cwd)).list)
        return ListSessionsResponse(
            sessions=[
                SessionInfo(session_id=i.id, cwd=cwd, title=f"(corrupt: {i.corrupt})")
                if i.corrupt
                else SessionInfo(session_id=i.id, cwd=cwd, title=i.title)
                for i in infos
            ]
        )

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        """`session/set_config_option`: review on/off for this session (its next plan)."""
        session = self._session(session_id)
        session.review = review_value(config_id, value)
        return SetSessionConfigOptionResponse(config_options=list(config_options(session.review)))

    def _announce_commands(self, session_id: str) -> None:
        commands = [AvailableCommand(name=n, description=d) for n, d in COMMANDS.items()]
        update = AvailableCommandsUpdate(
            session_update="available_commands_update", available_commands=commands
        )
        sink = UpdateSink(self.client, session_id)
        sink.send(update)
        asyncio.get_running_loop().create_task(sink.close())

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise unknown_session(session_id, "use session/new or session/load first")
        return session

    # -- prompts ---------------------------------------------------------------------------
    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        if session.turn is not None and not session.turn.done():
            raise RequestError(-32600, "a prompt is already running in this session")
        text = prompt_text(prompt)
        if not text.strip():
            raise invalid_params("prompt", "the prompt is empty")
        sink = UpdateSink(self.client, session_id)
        try:
            command = text.strip().split()
            if command[0].lstrip("/") in COMMANDS and command[0].startswith("/"):
                reply = await self._checkpoints(session, command[0][1:], command[1:])
                sink.send(update_agent_message_text(reply))
                return PromptResponse(stop_reason="end_turn")
            recorder = Recorder(typed_text(prompt) or text, sink)
            return await self._turn(session, text, recorder, attached_file(prompt))
        finally:
            await sink.close()

    async def _turn(
        self, session: AcpSession, text: str, recorder: Recorder, where: Path | None = None
    ) -> PromptResponse:
        session.cancelled = False
        sink: UpdateSink = recorder.sink
        session.turn = asyncio.create_task(self._run(session, text, recorder, where))
        try:
            await asyncio.shield(session.turn)
        except asyncio.CancelledError:
            if session.cancelled and session.turn.cancelled():
                return PromptResponse(stop_reason="cancelled")
            session.turn.cancel()
            raise
        except (ProviderError, AgentError) as exc:
            sink.emit(ErrorProgress(message=str(exc)))
            await sink.drain()
            raise RequestError(
                -32603, str(exc), {"provider": getattr(exc, "provider", None)}
            ) from None
        if session.cancelled:
            return PromptResponse(stop_reason="cancelled")
        try:
            chat = session.chat
            await asyncio.to_thread(session.history.save, session.id, chat.messages, chat.shown)
        except OSError as error:  # disk full...: the answer stands; as the LSP server, say so
            where = session.history.directory
            log.warning(
                "the conversation %s could not be saved in %s: %s", session.id, where, error
            )
        return PromptResponse(stop_reason="end_turn")

    async def _run(
        self, session: AcpSession, text: str, recorder: Recorder, where: Path | None = None
    ) -> None:
        """One turn (server.turn_assembly): plan files through the client's file system
        when it has one, a staged plan reviewed file by file (session/request_permission).
        `recorder` keeps what the user is shown (the files' diffs too) for session/load;
        `where`: the first file the prompt attached (its folders' rules files count)."""
        sink: UpdateSink = recorder.sink
        sink.recorder = recorder
        config, _ = self.state.config()
        writes = self.client if self._client_writes() else None
        buffers = AcpBuffers(self.client, session.id) if self._client_reads() else None
        real = AcpApplier(session.root, session.id, writes, sink, buffers)
        folder = await self.state.folders.get(session.root, config.allowSecretFiles)
        terminal = self.capabilities.terminal
        front = FrontEnd(
            session.root,
            [folder],
            real,
            sink,
            reviews=True,
            buffers=buffers,
            review=session.review,
            commands=AcpCommandGate(self.client, session.id, sink),
            command_runner=terminal_runner(self.client, session.id, sink) if terminal else None,
            recorder=recorder,
            context_path=where,
            tools=AcpToolGate(self.client, session.id, sink),
            trust=AcpToolGate(self.client, session.id, sink),
            mcp=session.mcp,
        )
        try:
            turn = await run_front_end_turn(self.state, front, session.chat, text)
            if turn.staged is None:
                return
            await sink.drain()
            board = self.state.board(session.root)
            decisions = await review_plan(
                self.client, session.id, session.root, turn.staged, real, board, sink
            )
            if decisions.review_off:  # allow_always: the session stops asking
                session.review = False
                sink.send(config_update(session.review))
        finally:
            sink.release()  # a failed or cancelled turn: the answer held back, as it came

    def _client_reads(self) -> bool:
        fs = self.capabilities.fs
        return bool(fs is not None and fs.read_text_file)

    def _client_writes(self) -> bool:
        fs = self.capabilities.fs
        return bool(fs is not None and fs.write_text_file)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is None or session.turn is None or session.turn.done():
            return
        session.cancelled = True
        session.turn.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await session.turn  # the plan in progress is rolled back before this returns

    # -- extension methods ---------------------------------------------------------------------
    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        name = method.removeprefix("agentls/")
        if not method.startswith("agentls/") or name not in COMMANDS:
            raise RequestError.method_not_found(f"_{method}")
        try:
            typed = decode(EXT_PARAMS, params, HistoryParams, f"params of _{method}")
        except JsonRpcInvalidParams as exc:
            raise RequestError(-32602, exc.message) from None
        session = self._session(typed.session_id)
        return {"text": await self._checkpoints(session, name, ["force"] if typed.force else [])}

    async def _checkpoints(self, session: AcpSession, name: str, args: list[str]) -> str:
        """/undo, /redo, /checkpoints on the store the session's turns record into (the same
        folder context: the `allowSecretFiles` setting included)."""
        config, _ = self.state.config()
        return await checkpoint_command(
            self.state.folders, session.root, name, args, config.allowSecretFiles
        )

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None
