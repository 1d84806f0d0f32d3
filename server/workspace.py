"""Per-folder state, opened once and shared by chat turns, undo/redo, review and the index.

A `FolderState` is the one home of what the server keeps for one workspace folder: its
`FolderContext` (path confinement, the checkpoint store -- opening it takes its lock,
initialises the shadow git directory and recovers an interrupted operation -- and the tool
registry bound to the folder), its live index, its review board and its MCP servers.
`Folders` holds them by root; a context is opened in a worker thread the first time it is
needed, so the event loop never blocks on it, and every later request gets the same one;
concurrent first requests share the one opening. When a folder goes (it leaves the
workspace, the server shuts down, the ACP connection ends) `Folders.close` is the one path:
the index stops (watcher and background work), the staged plans are dropped, its MCP
servers stop, the contexts are forgotten, and a later request opens the folder afresh.
`build_agent` combines a context with what changes per
turn: configuration, provider and the editor applier.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from actions.apply import Applier
from actions.buffers import BufferSource
from actions.checkpoints import CheckpointError, CheckpointStore
from actions.checkpoints.group import StoreGroup
from actions.paths import Workspace
from actions.plans import PlanFiles
from actions.review import ReviewBoard, StagingApplier
from actions.roots import Roots
from actions.tool_adapters import tool_adapter
from actions.tools import ReadFile, ToolRegistry, default_registry, lazy_index
from actions.tools.multiroot import multiroot_registry
from actions.tools.search_docs import IndexSource
from server.config import Config
from server.live_index import LiveIndex
from server.mcp.folder import FolderServers
from server.providers.base import Provider
from server.turns.turn import Agent, AgentError


@dataclass
class FolderContext:
    """One workspace folder's long-lived state."""

    root: Path
    workspace: Workspace
    store: CheckpointStore
    registry: ToolRegistry


def open_store(root: Path, secret_allow: Sequence[str] = ()) -> CheckpointStore:
    """The checkpoint store of `root` (outside the workspace; opening it recovers a crash)."""
    return CheckpointStore(root, secret_allow=secret_allow)


def open_folder(root: Path, secret_allow: Sequence[str] = ()) -> FolderContext:
    """Open the folder's state (blocking: file lock, git directory, crash recovery);
    `secret_allow`: the secret-looking files the user allows (agentLs.allowSecretFiles)."""
    store = open_store(root, secret_allow)
    workspace = Workspace(root, extra_denied=[store.store_dir], secret_allow=secret_allow)
    return FolderContext(root, workspace, store, default_registry(workspace))


class FolderUnavailable(AgentError):
    """The folder's state cannot be opened (not a folder, its checkpoint store unusable)."""


class FolderState:
    """Everything the server keeps for one workspace folder, closed in one place (`close`):
    its contexts (one per `allowSecretFiles` setting), its live index, its review board.
    (The `cli` provider's working directory is the root itself: see `ServerState.provider`.)"""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.board = ReviewBoard()  # the staged plans (review mode) of turns in this folder
        self.index: LiveIndex | None = None  # the live index, when one runs
        self.index_url = ""  # the indexUrl it was opened for
        self.mcp = FolderServers(root)  # its settings' and trusted .mcp.json's MCP servers
        self._contexts: dict[tuple[str, ...], asyncio.Task[FolderContext]] = {}

    async def context(self, secret_allow: Sequence[str] = ()) -> FolderContext:
        """The folder's context, opened now if needed (FolderUnavailable when it cannot be:
        the next call tries again). A changed `secret_allow` setting opens a new context."""
        key = tuple(secret_allow)
        task = self._contexts.get(key)
        if task is None:
            task = asyncio.ensure_future(asyncio.to_thread(open_folder, self.root, key))
            self._contexts[key] = task
        try:
            return await asyncio.shield(task)
        except (CheckpointError, OSError) as exc:
            if self._contexts.get(key) is task:
                del self._contexts[key]
            raise FolderUnavailable(
                f"the checkpoint store of {self.root} cannot be opened: {exc}"
            ) from exc

    def use_index(self, index: LiveIndex, url: str) -> None:
        """`index` (opened for `url`) is the folder's live index from now on."""
        self.index, self.index_url = index, url

    async def close_index(self) -> None:
        """Stop the live index (its watcher, build and embedder) and close its store."""
        index, self.index, self.index_url = self.index, None, ""
        if index is not None:
            await index.close()

    async def close(self) -> None:
        """The folder went: its index stops, its staged plans and contexts are dropped
        (the checkpoint store holds no lock between operations: nothing else to release)."""
        self._contexts.clear()
        self.board = ReviewBoard()
        await self.mcp.close()
        await self.close_index()


class Folders:
    """The state of every folder a server has used, by root."""

    def __init__(self) -> None:
        self._by_root: dict[Path, FolderState] = {}

    def folder(self, root: Path) -> FolderState:
        """The state of `root`, made (empty, nothing opened) on first use."""
        state = self._by_root.get(root)
        if state is None:
            state = self._by_root[root] = FolderState(root)
        return state

    def opened(self) -> list[FolderState]:
        return list(self._by_root.values())

    async def get(self, root: Path, secret_allow: Sequence[str] = ()) -> FolderContext:
        """The context of `root` (see `FolderState.context`)."""
        return await self.folder(root).context(secret_allow)

    async def all(
        self, roots: Sequence[Path], secret_allow: Sequence[str] = ()
    ) -> list[FolderContext]:
        """The context of every folder, in order (opened concurrently)."""
        return list(await asyncio.gather(*(self.get(root, secret_allow) for root in roots)))

    async def close(self, root: Path) -> None:
        """The folder `root` went (left the workspace, its last user ended): close its state;
        a later request for it opens it afresh."""
        state = self._by_root.pop(root, None)
        if state is not None:
            await state.close()

    async def close_all(self) -> None:
        """Close every folder (server shutdown, end of an ACP connection)."""
        for root in list(self._by_root):
            await self.close(root)


def roots_of(folders: Sequence[FolderContext]) -> Roots:
    """The folders named as the model sees them (a single folder stays unqualified)."""
    return Roots.of([folder.workspace for folder in folders])


def store_group(roots: Roots, folders: Sequence[FolderContext]) -> StoreGroup:
    """The checkpoint stores of the folders, by folder name."""
    return StoreGroup({root.name: f.store for root, f in zip(roots.roots, folders, strict=True)})


def build_agent(
    config: Config,
    provider: Provider,
    folder: FolderContext | None,
    applier: Applier | None,
    *,
    index_source: IndexSource | None = None,
    folders: Sequence[FolderContext] = (),
    index_sources: Mapping[str, IndexSource] | None = None,
    buffers: BufferSource | None = None,
) -> Agent:
    """The agent for one turn; without a folder the model can only talk (no tools, no edits).
    `index_source`: the live index for search_docs (the server's); else the embedded index of
    the folder is opened and updated on the first search. `folders`: every folder of a
    multi-root workspace (`folder` is the first): tools and plans then reach them all, each
    folder's index by name in `index_sources`. `buffers`: the editor's text of files, which
    read_file shows the model and a plan's pre-images are (None: the disk; a staged plan
    writes nothing and takes none)."""
    # The embedded model's decoding is constrained to one JSON document: no fences there.
    adapter = tool_adapter(config.toolProtocol, fenced_bodies=provider.name != "local")
    budget = history_chars(config)
    if folder is None or applier is None:
        return Agent(
            provider,
            ToolRegistry(),
            None,
            "(no folder)",
            adapter,
            config.maxTurns,
            history_chars=budget,
        )
    if len(folders) > 1:
        sources = (index_sources, buffers)
        return _multiroot_agent(config, provider, folders, applier, sources, budget)
    pre_images = None if isinstance(applier, StagingApplier) else buffers
    plans = PlanFiles(folder.workspace, folder.store, applier, buffers=pre_images)
    name = folder.workspace.name
    registry = folder.registry
    if not config.index:  # index: false — search_docs is not offered to the model
        registry = default_registry(folder.workspace, search_docs=False)
    elif index_source is not None or config.indexUrl:
        registry = default_registry(
            folder.workspace, index_source=index_source, index_url=config.indexUrl
        )
    if buffers is not None:  # this turn's read_file sees the editor's buffers
        registry = registry.replaced(ReadFile(folder.workspace, buffers=buffers))
    return Agent(provider, registry, plans, name, adapter, config.maxTurns, history_chars=budget)


def _multiroot_agent(
    config: Config,
    provider: Provider,
    folders: Sequence[FolderContext],
    applier: Applier,
    sources: tuple[Mapping[str, IndexSource] | None, BufferSource | None],
    budget: int,
) -> Agent:
    adapter = tool_adapter(config.toolProtocol, fenced_bodies=provider.name != "local")
    index_sources, buffers = sources
    roots = roots_of(folders)
    primary = folders[0]
    plans = PlanFiles(
        primary.workspace,
        primary.store,
        applier,
        roots=roots,
        group=store_group(roots, folders),
        buffers=None if isinstance(applier, StagingApplier) else buffers,
    )
    indexes = dict(index_sources or {})
    for root in roots.roots:
        indexes.setdefault(root.name, lazy_index(root.workspace, config.indexUrl))
    registry = multiroot_registry(roots, indexes if config.index else None, buffers)
    return Agent(
        provider,
        registry,
        plans,
        primary.workspace.name,
        adapter,
        config.maxTurns,
        history_chars=budget,
        folders=tuple(roots.names),
    )


def history_chars(config: Config) -> int:
    """Characters of earlier conversation a turn may send: the model's context window less
    the reply's share, at about 4 characters a token (never below a few exchanges)."""
    return max(8000, (config.contextSize - config.maxTokens) * 4)
