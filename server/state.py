"""The server's one state object: configuration, client capabilities, the chat sessions,
the provider in use and the per-folder state (`folder(root)`: server/workspace.py)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path

from actions.index.background import Yield
from actions.review import ReviewBoard
from server.capabilities import ResolvedClientCapabilities
from server.config import Config, ConfigProblem, blocking_problem, from_environment, merge
from server.history import SessionStore, UnknownSession
from server.mcp.manager import McpManager
from server.mcp.project import ProjectTrust
from server.protocol import McpServerStatus
from server.providers import make_provider
from server.providers.base import Provider
from server.resolve import Resolution, UnusableSetting, explicit_keys, resolve_provider
from server.turns.turn import ChatSession
from server.workspace import Folders, FolderState

PROVIDER_URL = frozenset({"baseUrl"})


@dataclass
class ServerState:
    """Everything the server keeps between requests. Document text stays in pygls' workspace."""

    env_config: Config
    init_options: dict[str, object] = field(default_factory=dict)
    client_settings: dict[str, object] = field(default_factory=dict)
    client: ResolvedClientCapabilities = field(default_factory=ResolvedClientCapabilities)
    chats: dict[str, ChatSession] = field(default_factory=dict)
    providers: dict[tuple[Config, Path | None], Provider] = field(default_factory=dict)
    folders: Folders = field(default_factory=Folders)
    # The last provider resolution and the settings it was made for (probes are not free).
    resolution: tuple[tuple[Config, frozenset[str]], Resolution] | None = None
    # The staged plans of turns without a folder (the model only talks: it stages nothing).
    loose_board: ReviewBoard = field(default_factory=ReviewBoard)
    foreground: Yield = field(default_factory=Yield)  # chat turns the index build yields to
    mcp: McpManager = field(default_factory=McpManager)  # the user's MCP servers (settings)
    project_trust: ProjectTrust = field(default_factory=ProjectTrust)  # trusted .mcp.json

    @classmethod
    def from_environment(cls) -> tuple[ServerState, list[ConfigProblem]]:
        config, problems = from_environment()
        return cls(env_config=config), problems

    def config(self) -> tuple[Config, list[ConfigProblem]]:
        """The effective configuration, highest source last, with every problem found."""
        config, problems = merge(self.env_config, self.init_options, "initializationOptions")
        config, more = merge(config, self.client_settings, "workspace/configuration")
        return config, problems + more

    def provider(self, config: Config, root: Path | None = None) -> Provider:
        """The provider for this configuration, kept so its connection pool (or a loaded
        local model) is reused; `root`: where a `cli` provider runs its command.

        One provider is kept for the whole server, not one per folder (the key holds the
        root only because the `cli` provider's command runs there): a connection pool or a
        loaded model is not a folder's, and closing a folder does not touch it."""
        key = (config, root)
        if key not in self.providers:
            self.providers.clear()
            self.providers[key] = make_provider(config, root)
        return self.providers[key]

    async def resolved_provider(self, root: Path | None) -> Provider:
        """The provider that answers: settings > environment > detected > embedded.

        Resolved again only when the settings change or after `forget_resolution` (a turn
        whose provider failed), so a turn does not probe local servers every time.
        A malformed agentLs.baseUrl is UnusableSetting (a ProviderError naming it)."""
        config, problems = self.config()
        problem = blocking_problem(problems, PROVIDER_URL)
        if problem is not None:
            raise UnusableSetting(problem)
        key = (config, frozenset(explicit_keys(self.init_options, self.client_settings)))
        if self.resolution is None or self.resolution[0] != key:
            self.resolution = (key, await resolve_provider(config, set(key[1])))
        return self.provider(self.resolution[1].config, root)

    def forget_resolution(self) -> None:
        """The provider failed: the next turn resolves again (a local server may be gone)."""
        self.resolution = None

    def mcp_report(self) -> list[McpServerStatus]:
        """Every MCP server: the user's, then each folder's (named by its folder)."""
        folders = [s for folder in self.folders.opened() for s in folder.mcp.report()]
        return self.mcp.report() + folders

    async def close_mcp(self) -> None:
        """Stop every MCP server, the user's and each folder's: no process left."""
        await self.mcp.close()
        for folder in self.folders.opened():
            await folder.mcp.close()

    def folder(self, root: Path) -> FolderState:
        """Everything kept for the folder `root`: its context, live index and review board."""
        return self.folders.folder(root)

    def board(self, root: Path | None) -> ReviewBoard:
        """The staged plans (review mode) of the workspace `root`."""
        return self.loose_board if root is None else self.folder(root).board

    def chat(self, session_id: str | None, history: SessionStore | None = None) -> ChatSession:
        """The session with this id, or a new one when None. A session not in memory is
        restored from `history` (the stored conversations of the workspace); an id that
        is in neither raises UnknownSession."""
        if session_id is None:
            session_id = uuid.uuid4().hex[:12]
            return self.chats.setdefault(session_id, ChatSession(session_id))
        if session_id not in self.chats:
            if history is None or not history.exists(session_id):
                raise UnknownSession(session_id)
            stored = history.load_chat(session_id)
            self.chats[session_id] = ChatSession(session_id, stored.messages, stored.shown)
        return self.chats[session_id]
