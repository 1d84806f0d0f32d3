"""One workspace folder's MCP servers, kept in its `FolderState` (server/workspace.py): those
of the folder's own settings (`agentLs.mcpServers` pulled with the folder as `scopeUri`,
less the entries it shares with the user's settings) and those of its `.mcp.json` once
trusted (server/mcp/project.py). A stdio server runs in the folder unless its entry names a
`cwd`; a turn in the folder offers their tools (and the user's), not another folder's; they
stop when the folder leaves the workspace."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from server.mcp.manager import McpManager
from server.mcp_config import McpServerSpec
from server.protocol import McpServerStatus


class FolderServers:
    """The folder's settings servers and its project servers."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.settings = McpManager(folder=root)
        self.project = McpManager(folder=root)

    def managers(self) -> list[McpManager]:
        return [self.settings, self.project]

    def report(self) -> list[McpServerStatus]:
        return self.settings.report() + self.project.report()

    async def close(self) -> None:
        """Every server of the folder stopped: no process left."""
        await self.settings.close()
        await self.project.close()


def folder_only(
    scoped: Sequence[McpServerSpec], user: Sequence[McpServerSpec]
) -> tuple[McpServerSpec, ...]:
    """The entries of a folder's settings that are its own: a client answers a folder's
    `workspace/configuration` with the user's entries merged in (VS Code), or with the
    user's settings when the folder has none."""
    shared = set(user)
    return tuple(spec for spec in scoped if spec not in shared)
