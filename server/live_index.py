"""The index of the open workspace while the server runs: built at start, kept fresh.

At ``initialized`` the workspace's index is opened (``indexUrl`` or the embedded store) and
brought up to date in the background; from then on ``watchfiles`` and the editor's
``didSave`` / ``workspace/didChangeWatchedFiles`` re-index what changes
(``AGENT_LS_INDEX_WATCH=0`` turns the watcher off, e.g. on a network file system). After
every update that changed something the server sends ``agent/indexUpdated``
``{indexed, removed, failed: {path: reason}}`` so a client (or a test) knows the index caught up.
With the ``embeddings`` extra, new and changed chunks are embedded in the background (BM25
finds them at once); when the embedder caught up it sends ``agent/indexUpdated`` with
``embedded`` / ``embeddingFailed`` counts. The provider's summaries of tables and long code
are asked after their document is written (``chunked``, found by its deterministic summary),
with no lock held and without holding up the build or the watcher; when they are final (the
provider's, or the deterministic ones where it gave none) the document is ``ready`` and
``agent/indexUpdated`` says ``summarized: [path]``.

The first build reports ``$/progress`` (begin, a report every 25 files with the counts, end
with the documents by status) when the server can create a progress token; it runs at low
priority: its batches and the embedder's wait while a chat turn runs, on niced threads
(``actions.index.background``). With ``index: false`` (``AGENT_LS_INDEX=0``) nothing here is
opened at all (server/features/indexing.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from actions.checkpoints import default_store_dir
from actions.files.listing import SKIP_DIRS
from actions.index import StoreError, Summarizer, UpdateReport, WorkspaceIndex, open_index
from actions.index.embedding_worker import EmbedReport
from actions.index.indexer import ProgressCallback
from actions.index.model import Hit
from actions.index.planning import Pause
from actions.index.watcher import watch
from actions.paths import Workspace
from server.protocol import IndexUpdated

log = logging.getLogger(__name__)
INITIAL_WAIT = 30.0
WATCH_ENV = "AGENT_LS_INDEX_WATCH"  # "0": no file watcher (didSave etc. still re-index)

Notify = Callable[[IndexUpdated], None]


class Progress(Protocol):
    """A client's progress bar (``$/progress``) for one build."""

    def report(self, done: int, total: int, path: str) -> None: ...

    def end(self, message: str) -> None: ...


StartProgress = Callable[[str], Awaitable[Progress | None]]  # title -> a bar, or None


class LiveIndex:
    """One workspace's index, its first build and its watcher."""

    def __init__(
        self, index: WorkspaceIndex, notify: Notify, start_progress: StartProgress | None = None
    ) -> None:
        self.index = index
        self.notify = notify
        self.start_progress = start_progress
        self.state = "starting"
        self.error = ""
        self.watching = asyncio.Event()
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[Any]] = []
        if index.embeddings is not None:
            index.embeddings.on_idle = self._embedded
        index.on_summarized = self._announce

    def start(self, *, watch_files: bool | None = None) -> None:
        if watch_files is None:
            watch_files = os.environ.get(WATCH_ENV, "1") != "0"
        self._tasks.append(asyncio.ensure_future(self._initial()))
        if watch_files:
            self._tasks.append(asyncio.ensure_future(self._watch()))

    async def _initial(self) -> None:
        self.state = "indexing"
        progress = None
        if self.start_progress is not None:
            progress = await self.start_progress("agent-ls: indexing the workspace")
        try:
            report = await self.index.update_all(
                progress.report if progress else None, wait_summaries=False
            )
        except Exception as error:
            log.exception("the first index build failed")
            self.state, self.error = "error", str(error)
            if progress is not None:
                progress.end(f"the index build failed: {error}")
            return
        self.state = "ready"
        if progress is not None:
            counts = await asyncio.to_thread(self.index.store.counts)
            progress.end(", ".join(f"{n} {state}" for state, n in counts.items() if n) or "empty")
        self._announce(report)
        try:
            await self.index.warm()
        except Exception:  # a search will try again and report it
            log.exception("loading the vectors failed")

    async def _watch(self) -> None:
        try:
            await watch(
                self.index.workspace.root,
                self.changed,
                self._stop,
                skip_dirs=SKIP_DIRS,
                ready=self.watching,
            )
        except Exception as error:  # no inotify, too many watches: didSave still works
            log.warning("file watching stopped: %s", error)

    async def ready(self, timeout: float = INITIAL_WAIT) -> None:
        """Wait (up to ``timeout``) for the first build to finish."""
        if self._tasks:
            await asyncio.wait({self._tasks[0]}, timeout=timeout)

    async def changed(self, paths: Iterable[str]) -> UpdateReport:
        report = await self.index.update_paths(paths, wait_summaries=False)
        self._announce(report)
        return report

    async def reindex(self, progress: ProgressCallback | None = None) -> UpdateReport:
        report = await self.index.update_all(progress)
        self.state = "ready"
        self._announce(report)
        return report

    async def search(self, query: str, k: int) -> list[Hit]:
        await self.ready()
        return await self.index.search(query, k)

    async def status(self) -> dict[str, Any]:
        report = (await self.index.status()).to_json()
        report["state"] = self.state
        report["watching"] = self.watching.is_set()
        if self.error:
            report["error"] = self.error
        return report

    def _embedded(self, report: EmbedReport) -> None:
        """The background embedder caught up: hybrid search now covers those chunks."""
        self.notify(
            IndexUpdated(
                indexed=[],
                removed=[],
                failed={},
                embedded=report.embedded,
                embedding_failed=report.failed,
            )
        )

    def _announce(self, report: UpdateReport) -> None:
        if report.changed or report.summarized:
            self.notify(
                IndexUpdated(
                    indexed=list(report.indexed),
                    removed=list(report.removed),
                    failed=dict(report.failed),
                    summarized=list(report.summarized) or None,
                )
            )

    @property
    def running(self) -> bool:
        """Is the first build, the watcher or an embedder still at work?"""
        return any(not task.done() for task in self._tasks)

    async def close(self) -> None:
        self._stop.set()
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.index.close()


def open_live(
    root: Path,
    url: str,
    notify: Notify,
    summarizer: Summarizer | None = None,
    summaries_off: str = "",
    *,
    start_progress: StartProgress | None = None,
    pause: Pause | None = None,
) -> LiveIndex:
    """Open (not start) the live index of ``root``; ``StoreError`` when it cannot be.
    ``summarizer``: writes table / long-code summaries (the active provider); without one,
    ``summaries_off`` says why (status). ``start_progress``: the first build's progress bar;
    ``pause``: what background batches wait for (the server's chat turns)."""
    workspace = Workspace(root, extra_denied=[default_store_dir(root)])
    index = open_index(workspace, url=url, summarizer=summarizer)
    if summaries_off:
        index.summaries_off = summaries_off
    if pause is not None:
        index.yield_to(pause)
    return LiveIndex(index, notify, start_progress)


__all__ = ["LiveIndex", "StoreError", "open_live"]
