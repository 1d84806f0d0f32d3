"""The server's one state object: configuration and the chat sessions."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from actions.review import ReviewBoard
from server.config import Config, ConfigProblem, from_environment, merge
from server.history import SessionStore, UnknownSession
from server.providers import make_provider
from server.providers.base import ChatMessage, Provider
from server.resolve import explicit_keys, resolve_provider


@dataclass
class ChatSession:
    """One conversation; turns of the same session run one at a time."""

    id: str
    messages: list[ChatMessage] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass
class ServerState:
    """Configuration layers and chat sessions. Document text stays in pygls' workspace."""

    env_config: Config
    init_options: dict[str, object] = field(default_factory=dict)
    client_settings: dict[str, object] = field(default_factory=dict)
    chats: dict[str, ChatSession] = field(default_factory=dict)
    providers: dict[tuple[Config, Path | None], Provider] = field(default_factory=dict)
    boards: dict[Path | None, ReviewBoard] = field(default_factory=dict)

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
        local model) is reused; `root`: where a `cli` provider runs its command."""
        key = (config, root)
        if key not in self.providers:
            self.providers.clear()
            self.providers[key] = make_provider(config, root)
        return self.providers[key]

    async def resolved_provider(self, root: Path | None) -> Provider:
        """The provider that answers now: settings > environment > detected > embedded."""
        config, _ = self.config()
        explicit = explicit_keys(self.init_options, self.client_settings)
        resolution = await resolve_provider(config, explicit)
        return self.provider(resolution.config, root)

    def board(self, root: Path | None) -> ReviewBoard:
        """The staged plans (review mode) of the workspace `root`."""
        return self.boards.setdefault(root, ReviewBoard())

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
            self.chats[session_id] = ChatSession(session_id, history.load(session_id))
        return self.chats[session_id]
