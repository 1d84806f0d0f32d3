"""The pygls server class: typed custom messages and the one state object."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, BinaryIO, Optional, TypeVar, Union

import attrs
import cattrs
from lsprotocol import types
from pygls.exceptions import (
    FeatureRequestError,
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcRequestCancelled,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from actions.roots import folder_names
from server import __version__
from server.arguments import decode, decode_command, strict
from server.config import ConfigProblem
from server.protocol import AGENT_CHAT, AGENT_SEARCH, AGENT_SESSIONS, AGENT_STATUS, make_converter
from server.redact import RedactingWriter, redact
from server.state import ServerState
from server.wire.serve import run_stdio, run_tcp

log = logging.getLogger(__name__)
T = TypeVar("T")

REQUEST_FAILED = -32803  # LSP's RequestFailed: well-formed request that could not be served


@attrs.define
class RawRequest:
    """A custom request whose params stay raw JSON until the handler types them.

    pygls drops a message it cannot structure without answering; typing the params in the
    handler instead gives the client an InvalidParams error that says what is wrong.
    """

    id: int | str
    method: str
    params: Any = None
    jsonrpc: str = "2.0"


def _int_or_str(value: Any, _type: Any) -> int | str:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(f"expected an integer or a string, got {type(value).__name__}")
    return value


def _optional_int_or_str(value: Any, _type: Any) -> int | str | None:
    return None if value is None else _int_or_str(value, _type)


def params_converter() -> cattrs.Converter:
    """The wire converter (server/protocol.py), and an id or progress token (integer |
    string) must be one of those (lsprotocol let `{}` through as a workDoneToken)."""
    converter = make_converter()
    # lsprotocol registers the typing spelling of these unions: override both spellings
    tokens = (Union[int, str], Optional[Union[int, str]], int | str, int | str | None)  # noqa: UP007, UP045
    for token in tokens:
        converter.register_structure_hook(token, _optional_int_or_str)
    return converter


ARGUMENTS = strict(params_converter())  # agent-ls' own params and command arguments


class AgentProtocol(LanguageServerProtocol):
    CUSTOM_REQUESTS = frozenset({AGENT_CHAT, AGENT_STATUS, AGENT_SESSIONS, AGENT_SEARCH})

    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method in self.CUSTOM_REQUESTS:
            return RawRequest
        return super().get_message_type(method)

    def set_writer(self, writer: Any, include_headers: bool = True) -> None:
        """Every byte sent to the client passes the secret mask (server/redact.py)."""
        super().set_writer(RedactingWriter(writer), include_headers)

    def _send_handler_result(self, future: Future[Any], *, msg_id: Any) -> None:
        """pygls' answer to a finished handler, but an unexpected exception is answered with
        its type and message only (the traceback goes to the log, not to the client)."""
        self._request_futures.pop(msg_id, None)
        try:
            if future.cancelled():
                cancelled = JsonRpcRequestCancelled(f'request "{msg_id}" was cancelled')
                self._send_response(msg_id, error=cancelled.to_response_error())
                return
            self._send_response(msg_id, result=future.result())
        except JsonRpcException as exc:
            log.info("request %r failed: %s", msg_id, exc)
            self._send_response(msg_id, error=exc.to_response_error())
        except Exception as exc:
            log.exception("internal error in request %r", msg_id)
            error = JsonRpcInternalError(
                f"internal error: {type(exc).__name__}: {redact(str(exc))}"
            )
            self._send_response(msg_id, error=error.to_response_error())
            self._server._report_server_error(error, FeatureRequestError)


class RequestFailed(JsonRpcException):
    """A request that could not be served; its message passes the secret mask by shape too
    (every byte to the client is masked of the known secrets anyway)."""

    CODE = REQUEST_FAILED

    def __init__(self, message: str | None = None, code: int | None = None, data: Any = None):
        super().__init__(redact(message) if message is not None else None, code, data)


class AgentLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "agent-ls", __version__, protocol_cls=AgentProtocol, converter_factory=params_converter
        )
        self.exit_code = 0
        self.state, problems = ServerState.from_environment()
        self.startup_problems: list[ConfigProblem] = problems
        self.config_refresh: asyncio.Task[None] | None = None
        self._shown: set[str] = set()
        self.document_changed = asyncio.Condition()
        # Features that start work once the client is initialized (settings being pulled).
        self.after_initialized: list[Callable[[AgentLanguageServer], None]] = []

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio with agent-ls' wire (see server/wire); sets `exit_code`."""
        self.exit_code = run_stdio(
            self.protocol, stdin or sys.stdin.buffer, stdout or sys.stdout.buffer
        )
        self.shutdown()  # type: ignore[no-untyped-call]

    def start_tcp(
        self, host: str, port: int, fresh: Callable[[], AgentLanguageServer] | None = None
    ) -> None:
        """Serve TCP clients until a stop signal; prints "listening on" once bound; sets
        `exit_code`. This server answers the first client; every later or concurrent one
        gets its own server from `fresh` (`server.app.build_server`: every feature; its own
        state: chat sessions, settings)."""
        first = [self.protocol]

        def protocol_for_client() -> Any:
            if first:
                return first.pop()
            return (fresh or type(self))().protocol

        self.exit_code = run_tcp(protocol_for_client, host, port)
        self.shutdown()  # type: ignore[no-untyped-call]

    def typed(self, params: Any, cls: type[T]) -> T:
        """Structure raw params into `cls`, or raise InvalidParams naming what is wrong."""
        return decode(ARGUMENTS, params, cls)

    def command_argument(self, command: str, arguments: tuple[Any, ...], cls: type[T]) -> T:
        """The argument of an agent-ls command typed as `cls` (see `server.arguments`)."""
        return decode_command(ARGUMENTS, command, arguments, cls)

    def roots(self) -> list[Path]:
        """Every workspace folder, in the client's order (`workspaceFolders` of initialize,
        kept current by didChangeWorkspaceFolders); `rootUri` / `rootPath` when it sent none."""
        found: list[Path] = []
        for folder in self.workspace.folders.values():
            path = to_fs_path(folder.uri) if folder.uri.startswith("file:") else None
            if path and Path(path) not in found:
                found.append(Path(path))
        if not found and self.workspace.root_path:
            found.append(Path(self.workspace.root_path))
        return found

    def folder_name(self, root: Path) -> str:
        """The name the model sees for the folder `root` ("" when it is the only folder)."""
        roots = self.roots()
        if len(roots) < 2 or root not in roots:
            return ""
        return folder_names(roots)[roots.index(root)]

    def folder_of(self, path: Path) -> Path | None:
        """The workspace folder holding `path` (the innermost one), or None."""
        resolved = path.resolve()
        inside = [root for root in self.roots() if resolved.is_relative_to(root.resolve())]
        return max(inside, key=lambda root: len(root.resolve().parts), default=None)

    def root(self) -> Path | None:
        """The primary workspace folder (the first one): where chat sessions, review and the
        `cli` provider live; tools, plans, undo and the index cover every folder (`roots`)."""
        roots = self.roots()
        return roots[0] if roots else None

    def show_problems(self, problems: list[ConfigProblem]) -> None:
        for problem in problems:
            if problem.message() in self._shown:
                continue
            self._shown.add(problem.message())
            log.warning("%s", problem.message())
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=problem.message())
            )
