"""Helpers for the retrieval end-to-end tests: a real server process on a prepared workspace."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

from server.protocol import AGENT_INDEX_UPDATED, AGENT_SEARCH, AGENT_STATUS
from tests.e2e.conftest import as_dict


class IndexEvents:
    """Collects agent/indexUpdated notifications; tests wait on them, never sleep."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.changed = asyncio.Condition()

    async def add(self, params: Any) -> None:
        async with self.changed:
            self.items.append(as_dict(params))
            self.changed.notify_all()

    def mark(self) -> int:
        """Where the next wait_for starts looking (events before it are ignored)."""
        return len(self.items)

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], since: int = 0, timeout: float = 20
    ) -> dict[str, Any]:
        def found() -> dict[str, Any] | None:
            return next((item for item in self.items[since:] if predicate(item)), None)

        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(lambda: found() is not None), timeout)
            item = found()
            assert item is not None
            return item

    def indexed(self, path: str) -> Callable[[dict[str, Any]], bool]:
        return lambda item: path in item["indexed"]

    def removed(self, path: str) -> Callable[[dict[str, Any]], bool]:
        return lambda item: path in item["removed"]

    def summarized(self, path: str) -> Callable[[dict[str, Any]], bool]:
        """The provider's summaries of ``path`` were written (it is searchable by them)."""
        return lambda item: path in (item.get("summarized") or [])


@asynccontextmanager
async def running_server(
    workspace: Path,
    settings: dict[str, Any] | None = None,
    editor: str = "visual-studio-code",
    env: dict[str, str] | None = None,
    prefix: tuple[str, ...] = (),
) -> AsyncIterator[tuple[LanguageClient, IndexEvents]]:
    """A server on ``workspace`` (``prefix``: a command the server runs under, e.g. setpriv)."""
    client = make_test_lsp_client()
    events = IndexEvents()

    async def on_index_updated(params: Any) -> None:
        await events.add(params)

    client.feature(AGENT_INDEX_UPDATED)(on_index_updated)
    await client.start_io(
        *prefix, sys.executable, "-m", "server", env={**os.environ, **(env or {})}
    )
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(editor),
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
            initialization_options={"agentLs": settings or {}},
        )
    )
    try:
        yield client, events
    finally:
        await client.shutdown_session()
        await client.stop()


async def search(client: LanguageClient, query: str, **params: Any) -> list[dict[str, Any]]:
    result = await client.protocol.send_request_async(AGENT_SEARCH, {"query": query, **params})
    return as_dict(result)  # type: ignore[no-any-return]


async def status(client: LanguageClient) -> dict[str, Any]:
    result = await client.protocol.send_request_async(AGENT_STATUS, {"check": False})
    return as_dict(result)  # type: ignore[no-any-return]
