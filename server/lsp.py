"""The pygls server class: typed custom messages and the one state object."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, TypeVar

import attrs
import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from server import __version__
from server.config import ConfigProblem
from server.protocol import AGENT_CHAT, AGENT_SEARCH, AGENT_SESSIONS, AGENT_STATUS, make_converter
from server.session import ServerState

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


class AgentProtocol(LanguageServerProtocol):
    CUSTOM_REQUESTS = frozenset({AGENT_CHAT, AGENT_STATUS, AGENT_SESSIONS, AGENT_SEARCH})

    def get_message_type(self, method: str) -> type[Any] | None:  # type: ignore[override]
        if method in self.CUSTOM_REQUESTS:
            return RawRequest
        return super().get_message_type(method)


class RequestFailed(JsonRpcException):
    CODE = REQUEST_FAILED


class AgentLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "agent-ls", __version__, protocol_cls=AgentProtocol, converter_factory=make_converter
        )
        self.state, problems = ServerState.from_environment()
        self.startup_problems: list[ConfigProblem] = problems
        self.config_refresh: asyncio.Task[None] | None = None
        self._shown: set[str] = set()
        self.document_changed = asyncio.Condition()

    def typed(self, params: Any, cls: type[T]) -> T:
        """Structure raw params into `cls`, or raise InvalidParams naming what is wrong."""
        if params is None:
            raise JsonRpcInvalidParams("missing params")
        try:
            return self.protocol._converter.structure(params, cls)
        except (cattrs.BaseValidationError, TypeError, ValueError) as exc:
            detail = (
                "; ".join(cattrs.transform_error(exc))
                if isinstance(exc, cattrs.BaseValidationError)
                else str(exc)
            )
            raise JsonRpcInvalidParams(f"invalid params: {detail}") from None

    def root(self) -> Path | None:
        """The workspace folder agent-ls works in (the first one of a multi-root window)."""
        for folder in self.workspace.folders.values():
            path = to_fs_path(folder.uri)
            if path:
                return Path(path)
        root = self.workspace.root_path
        return Path(root) if root else None

    def show_problems(self, problems: list[ConfigProblem]) -> None:
        for problem in problems:
            if problem.message() in self._shown:
                continue
            self._shown.add(problem.message())
            log.warning("%s", problem.message())
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Warning, message=problem.message())
            )
