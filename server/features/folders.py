"""The workspace folders of a multi-root window: opening them for a request, following
`workspace/didChangeWorkspaceFolders`.

The folders come from `initialize` (`workspaceFolders`, `rootUri` when there are none) and
pygls keeps `ls.workspace.folders` current; `AgentLanguageServer.roots()` lists them in the
client's order. A folder that leaves the workspace has its state closed (its index stops,
its staged plans and context are dropped); a folder that joins gets its index built in the
background. At `shutdown` every folder's state is closed.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from actions.checkpoints.group import StoreGroup
from actions.roots import Roots
from server.features.configuration import refresh, settled
from server.features.indexing import live
from server.lsp import AgentLanguageServer, RequestFailed
from server.workspace import FolderContext, FolderUnavailable, roots_of, store_group

log = logging.getLogger(__name__)
_STARTING: set[asyncio.Task[None]] = set()


def register(server: AgentLanguageServer) -> None:
    server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(on_folders_changed)
    server.feature(types.SHUTDOWN)(on_shutdown)


@dataclass(frozen=True)
class OpenWorkspace:
    """Every folder's context, in order (the first is the primary folder)."""

    folders: list[FolderContext]
    roots: Roots

    @property
    def primary(self) -> FolderContext:
        return self.folders[0]

    @property
    def multi(self) -> bool:
        return len(self.folders) > 1

    def paths(self) -> dict[str, Path]:
        """Each folder by the name the model sees ({} for a single folder)."""
        if not self.multi:
            return {}
        return {root.name: root.workspace.root for root in self.roots.roots}

    def group(self) -> StoreGroup:
        """The checkpoint stores of every folder, by name."""
        return store_group(self.roots, self.folders)


async def open_workspace(ls: AgentLanguageServer) -> OpenWorkspace | None:
    """Every folder's context (opened once, off the event loop); None without a folder;
    FolderUnavailable (an AgentError) when one cannot be opened."""
    roots = ls.roots()
    if len(roots) > 1:  # a folder deleted from disk must not take the others down with it
        for gone in [root for root in roots if not root.is_dir()]:
            log.warning("workspace folder %s is not a folder on disk: left out", gone)
        roots = [root for root in roots if root.is_dir()] or roots[:1]
    if not roots:
        return None
    config, _ = ls.state.config()
    folders = await ls.state.folders.all(roots, config.allowSecretFiles)
    return OpenWorkspace(folders, roots_of(folders))


async def require_workspace(ls: AgentLanguageServer, what: str) -> OpenWorkspace:
    """`open_workspace` for a command: RequestFailed when there is no folder or it cannot
    be opened; `what` says what is missing without one."""
    try:
        opened = await open_workspace(ls)
    except FolderUnavailable as exc:
        raise RequestFailed(str(exc)) from None
    if opened is None:
        raise RequestFailed(f"no workspace folder is open: {what}")
    return opened


async def on_folders_changed(
    ls: AgentLanguageServer, params: types.DidChangeWorkspaceFoldersParams
) -> None:
    """pygls updated `ls.workspace.folders`; close the removed folders' state (index, staged
    plans, contexts, the servers of their .mcp.json) and start indexing the added ones."""
    for folder in params.event.removed:
        path = to_fs_path(folder.uri)
        if not path:
            continue
        for root in {Path(path), Path(path).resolve()}:
            await ls.state.folders.close(root)  # its MCP servers too
    added = [Path(p) for p in (to_fs_path(f.uri) for f in params.event.added) if p]
    if added:  # their folder-scoped settings (MCP servers), then their index
        ls.config_refresh = asyncio.ensure_future(refresh(ls, None))
        task = asyncio.ensure_future(_index(ls, added))
        _STARTING.add(task)
        task.add_done_callback(_STARTING.discard)


async def on_shutdown(ls: AgentLanguageServer, *args: object) -> None:
    """The client asked the server to shut down: every folder's index stops before the answer."""
    await ls.state.close_mcp()  # every MCP server stopped: no process left
    await ls.state.folders.close_all()


async def _index(ls: AgentLanguageServer, roots: list[Path]) -> None:
    await settled(ls)
    if not ls.state.config()[0].index:
        return  # index: false
    for root in roots:
        if root not in ls.roots():
            continue
        try:
            await live(ls, root)
        except RequestFailed as error:
            log.warning("%s", error)
