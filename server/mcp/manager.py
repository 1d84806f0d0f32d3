"""The MCP servers of a configuration: started in the background when the configuration names
them, stopped when it no longer does (or at shutdown), their state for `agent/status`.

`sync(specs)` is cheap and idempotent: a server whose entry is unchanged keeps running; a
changed entry is stopped and started anew. A turn calls `wait_started` before offering tools:
it waits at most for the servers still starting, each bounded by its start timeout.
A folder's manager (server/mcp/folder.py) starts its stdio servers in the folder when their
entry names no `cwd`, and `agent/status` names the folder.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from server.mcp_config import START_TIMEOUT, McpServerSpec
from server.protocol import McpServerStatus

if TYPE_CHECKING:  # the MCP SDK (half a second of imports) loads with the first server
    from server.mcp.connection import McpConnection, McpStatus

log = logging.getLogger(__name__)


class McpManager:
    """Connections by server name, in the configuration's order."""

    def __init__(self, start_timeout: float = START_TIMEOUT, folder: Path | None = None) -> None:
        self.start_timeout = start_timeout
        self.folder = folder  # the workspace folder it runs the servers of (None: the user's)
        self.connections: dict[str, McpConnection] = {}
        self._stopping: set[asyncio.Task[None]] = set()

    def sync(self, specs: Sequence[McpServerSpec]) -> None:
        """Run exactly the servers of `specs` (must be called on the event loop)."""
        wanted = {spec.name: spec for spec in specs}
        for name, connection in list(self.connections.items()):
            if wanted.get(name) != connection.spec:
                del self.connections[name]
                self._stop_later(connection)
        for name, spec in wanted.items():
            if name not in self.connections:
                from server.mcp.connection import McpConnection

                connection = McpConnection(spec, self.start_timeout, cwd=self.folder)
                self.connections[name] = connection
                connection.start()

    async def wait_started(self) -> None:
        """Until no server is starting (each start is bounded by its timeout)."""
        starting = [c.wait_started() for c in self.connections.values() if c.state == "starting"]
        if starting:
            await asyncio.gather(*starting)

    def ready(self) -> list[McpConnection]:
        return [c for c in self.connections.values() if c.state == "ready"]

    def status(self) -> list[McpStatus]:
        return [connection.status() for connection in self.connections.values()]

    def report(self) -> list[McpServerStatus]:
        """The servers as `agent/status` and `agent-ls mcp list` show them."""
        return [
            McpServerStatus(
                name=s.name,
                transport=s.transport,
                state=s.state,
                tools=list(s.tools),
                error=s.error or None,
                folder=None if self.folder is None else str(self.folder),
                failures=s.failures,
                retry_delay=s.retry_delay,
            )
            for s in self.status()
        ]

    async def close(self) -> None:
        """Stop every server (shutdown): no process is left."""
        connections, self.connections = list(self.connections.values()), {}
        await asyncio.gather(*(c.stop() for c in connections))
        if self._stopping:
            await asyncio.gather(*self._stopping)

    def _stop_later(self, connection: McpConnection) -> None:
        task = asyncio.create_task(connection.stop(), name=f"stop mcp {connection.spec.name}")
        self._stopping.add(task)

        def done(finished: asyncio.Task[None]) -> None:
            self._stopping.discard(finished)
            if not finished.cancelled() and finished.exception() is not None:
                log.error("stopping mcp server %s failed", connection.spec.name)

        task.add_done_callback(done)
