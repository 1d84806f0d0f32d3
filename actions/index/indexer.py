"""Keep a workspace's index up to date, incrementally, and search it.

Each covered file goes ``pending -> chunked -> ready`` or ``failed`` (with the reason). A file
whose size and modification time match its record is not read again; one whose content hash
matches is not re-chunked; removed files leave the index. Writes run one batch at a time (an
asyncio lock), so the watcher and a full re-index can interleave safely.

With a summarizer (the provider), a document with tables or long code blocks is written
``chunked`` at once with the deterministic summaries (BM25 finds it), then the summarizer is
asked with no lock held — a slow provider never delays other files' updates — and the
document is rewritten ``ready`` (``summary_phase``). ``update_all`` / ``update_paths`` wait for
those summaries unless told not to (``wait_summaries=False``: the server, told by
``on_summarized`` when they land). A document still ``chunked`` when the process stopped is
finished at the next build without being re-chunked (``resume``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from actions.index.embedding_worker import EmbeddingWorker
from actions.index.embeddings import Embedder, dense_status
from actions.index.files import FileSet, IndexConfig
from actions.index.model import (
    Chunk,
    DocumentRecord,
    DocumentStatus,
    Hit,
    IndexStatus,
    StoreError,
    with_embedding_status,
)
from actions.index.planning import (
    Pause,
    Plan,
    Planner,
    failed_plan,
    plan_document,
    same_stat,
    stale,
)
from actions.index.store import Store
from actions.index.summary import Summarizer
from actions.index.summary_phase import SummaryPhase, UpdateReport
from actions.paths import Workspace

log = logging.getLogger(__name__)
ProgressCallback = Callable[[int, int, str], None]
MAX_FAILURES_SHOWN = 50


class WorkspaceIndex(SummaryPhase):
    """The index of one workspace: updates (full or by path), search and status."""

    def __init__(
        self,
        workspace: Workspace,
        store: Store,
        config: IndexConfig | None = None,
        summarizer: Summarizer | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.workspace = workspace
        self.store = store
        self.files = FileSet(workspace, config or IndexConfig())
        self.summarizer = summarizer
        self.summaries_off = "no provider is configured to write them"  # without a summarizer
        self.on_summarized: Callable[[UpdateReport], None] | None = None
        self._summarizing: set[asyncio.Task[UpdateReport]] = set()
        self.embedder = embedder  # None: BM25 only
        self.embeddings = EmbeddingWorker(store, embedder) if embedder else None
        self.embed_in_background = True  # False: pending chunks wait for another process
        self._lock = asyncio.Lock()
        self.pause: Pause | None = None  # a build awaits it between batches (the foreground)

    def yield_to(self, pause: Pause) -> None:
        """Background work (build batches, embedding batches) awaits ``pause`` first."""
        self.pause = pause
        if self.embeddings is not None:
            self.embeddings.pause = pause

    async def update_all(
        self, progress: ProgressCallback | None = None, *, wait_summaries: bool = True
    ) -> UpdateReport:
        """Bring the whole index up to date with the workspace."""
        paths = await self.files.list()
        known = await asyncio.to_thread(self.store.documents)
        report = UpdateReport()
        wanted = set(paths)
        for gone in sorted(set(known) - wanted):
            await asyncio.to_thread(self.store.remove_document, gone)
            report.removed.append(gone)
        marked = await asyncio.to_thread(self._mark_pending, paths, known)
        items = [(path, known.get(path), path in marked) for path in paths]
        done = 0
        # Each batch is written before the next is planned. Planning the next while one was
        # written gained no time (both hold the GIL) and cost CPU: SQLite releases the GIL at
        # every row, so with a core free the two threads handed it back and forth (25,000
        # context switches, 7.2 -> 6.2 CPU s at 5,000 files; docs/retrieval.md, round 5).
        batches = Planner(self.files, self.pause).batches(items)
        summarizing: list[asyncio.Task[UpdateReport]] = []
        async with contextlib.aclosing(batches):
            async for plans in batches:
                await self._write_batch(plans, report, summarizing)
                for plan in plans:
                    done += 1
                    if progress is not None:
                        progress(done, len(paths), plan.path)
        self._embed_later()
        if wait_summaries:
            for summarized in await asyncio.gather(*summarizing):
                report.merge(summarized)
        return report

    async def _write_batch(
        self, plans: list[Plan], report: UpdateReport, summarizing: list[asyncio.Task[UpdateReport]]
    ) -> None:
        async with self._lock:  # a watcher's update waits for one batch at most
            done, awaiting = await asyncio.to_thread(self._write, plans)
        report.merge(done)
        if awaiting:
            summarizing.append(self._summarize_later(awaiting))

    async def update_paths(
        self, paths: Iterable[str], *, wait_summaries: bool = True
    ) -> UpdateReport:
        """Re-index these workspace-relative paths (created, changed, renamed or deleted)."""
        given = {path.strip("/") for path in paths if path.strip("/")}
        known = await asyncio.to_thread(self.store.documents)
        below = {doc for doc in known for path in given if doc.startswith(path + "/")}
        inside = await asyncio.to_thread(self._files_below, given)
        wanted = sorted(given | below | inside)  # a folder: every file it holds / held
        ignored = await asyncio.to_thread(self.files.ignored, wanted)
        report = UpdateReport()
        summarizing: list[asyncio.Task[UpdateReport]] = []
        for path in wanted:
            if path in ignored or self.files.skipped(path):
                if path in known:
                    await asyncio.to_thread(self.store.remove_document, path)
                    report.removed.append(path)
                continue
            report.merge(await self._update(path, known.get(path), summarizing))
        self._embed_later()
        if wait_summaries:
            for done in await asyncio.gather(*summarizing):
                report.merge(done)
        return report

    def _embed_later(self) -> None:
        """Vectors are filled in the background: BM25 already finds the new chunks."""
        if self.embeddings is not None and self.embed_in_background:
            self.embeddings.kick()

    def _files_below(self, paths: Iterable[str]) -> set[str]:
        found: set[str] = set()
        root = self.workspace.root
        for path in paths:
            if not (root / path).is_dir() or self.files.skipped(path):
                continue
            for current, dirs, names in os.walk(root / path):
                folder = Path(current).relative_to(root).as_posix()
                dirs[:] = [d for d in dirs if not self.files.skipped(f"{folder}/{d}")]
                found.update(f"{folder}/{name}" for name in names)
        return found

    async def _update(
        self,
        path: str,
        known: DocumentRecord | None,
        summarizing: list[asyncio.Task[UpdateReport]],
    ) -> UpdateReport:
        async with self._lock:
            plan = await asyncio.to_thread(plan_document, self.files, path, known, False)
            report, awaiting = await asyncio.to_thread(self._write, [plan])
        if awaiting:
            summarizing.append(self._summarize_later(awaiting))
        return report

    def _write(self, plans: list[Plan], *, chunked: bool = True) -> tuple[UpdateReport, list[Plan]]:
        """Write plans in one batch of the store (runs in a worker thread); a file that
        changed since it was planned is planned again first. Documents whose summaries the
        model writes are written ``chunked`` (``chunked``) and returned, to be summarized."""
        report, waiting = UpdateReport(), []
        with self.store.batch():
            chunks: list[tuple[Plan, DocumentStatus]] = []
            for plan in plans:
                if stale(self.files, plan):
                    plan = plan_document(self.files, plan.path, None, True)
                if plan.action == "resume" and self.summarizer is not None:
                    plan.chunks = self.store.chunks_of(plan.path)
                waits = chunked and self._awaits_summaries(plan)
                status: DocumentStatus = "chunked" if waits else "ready"
                if plan.action in ("chunks", "failed"):
                    chunks.append((plan, status))  # written together below
                    if waits:
                        waiting.append(plan)
                elif self._apply_one(plan, status, report) and waits:
                    waiting.append(plan)
            failed = self._replace(chunks, report)
        return report, [plan for plan in waiting if plan.path not in failed]

    def _replace(self, plans: list[tuple[Plan, DocumentStatus]], report: UpdateReport) -> set[str]:
        """Write the chunks of ``plans`` in one go (one statement per table); when that fails,
        one by one, so that only the document at fault is recorded failed. The paths failed
        that way."""
        if not plans:
            return set()
        try:
            self.store.replace_many([self._replacement(plan, status) for plan, status in plans])
        except StoreError:  # the store failing is no document's failure: stop
            raise
        except Exception as error:
            log.warning("writing a batch failed (%r): writing its documents one by one", error)
            return {
                plan.path for plan, status in plans if not self._apply_one(plan, status, report)
            }
        for plan, _ in plans:
            report.merge(_written(plan))
        return set()

    def _apply_one(self, plan: Plan, status: DocumentStatus, report: UpdateReport) -> bool:
        """Write one plan; a failure (not the store's) records the document failed: False."""
        try:
            report.merge(self._apply(plan, status))
        except StoreError:
            raise
        except Exception as error:
            report.merge(self._apply(failed_plan(plan.path, error)))
            return False
        return True

    def _apply(self, plan: Plan, status: DocumentStatus = "ready") -> UpdateReport:
        """Write one plan to the store (runs in a worker thread)."""
        if plan.action == "skip":
            return UpdateReport()
        if plan.action == "remove":
            self.store.remove_document(plan.path)
            return UpdateReport(removed=[plan.path])
        if plan.action == "unchanged":
            return UpdateReport(unchanged=[plan.path])
        assert plan.record is not None
        if plan.action == "touch":
            self.store.put_document(plan.record)
            return UpdateReport(unchanged=[plan.path])
        if plan.action == "resume":  # chunked when the last process stopped: chunks kept
            self.store.put_document(replace(plan.record, status=status))
            return UpdateReport(unchanged=[plan.path])
        self.store.replace_chunks(*self._replacement(plan, status))
        return _written(plan)

    def _replacement(
        self, plan: Plan, status: DocumentStatus
    ) -> tuple[DocumentRecord, list[Chunk]]:
        """The record and chunks a ``chunks`` or ``failed`` plan writes."""
        assert plan.record is not None
        chunks = plan.chunks
        if self.embedder is not None:  # vectors are filled in the background
            chunks = [with_embedding_status(chunk, "pending") for chunk in chunks]
        record = plan.record
        if plan.action == "chunks" and status != record.status:
            record = replace(record, status=status)
        return record, chunks

    def _mark_pending(self, paths: list[str], known: dict[str, DocumentRecord]) -> set[str]:
        """Record ``pending`` for every file whose size or time changed (one transaction)."""
        stale = []
        for path in paths:
            info = self.files.stat(path)
            if (
                info is not None
                and not stat.S_ISDIR(info.st_mode)
                and not same_stat(known.get(path), info)
            ):
                old = known.get(path)
                stale.append(
                    replace(old, status="pending") if old else DocumentRecord(path, "pending")
                )
        if stale:
            self.store.put_documents(stale)
        return {record.path for record in stale}

    async def search(self, query: str, k: int = 8, *, dense: bool = True) -> list[Hit]:
        """The ``k`` best original elements for ``query`` (hybrid when there is an embedder
        and ``dense``; BM25 alone else)."""
        return await asyncio.to_thread(self.search_now, query, k, dense=dense)

    def search_now(self, query: str, k: int = 8, *, dense: bool = True) -> list[Hit]:
        """``search`` in the calling thread."""
        vector = None
        if dense and self.embedder is not None and query.strip():
            try:
                (vector,) = self.embedder.embed([query])
            except Exception:  # the model failing never costs the lexical results
                log.exception("embedding the query failed: BM25 only")
        return self.store.search(query, k, vector=vector)

    async def warm(self) -> None:
        """Open what the first hybrid search would (the embedded store's saved vector graph, or
        the start of its background build when there is none), so that a user's first search
        does not wait for it."""
        if self.embedder is not None:
            probe = (1.0,) + (0.0,) * (self.embedder.dimension - 1)
            await asyncio.to_thread(self.store.search, "", 1, vector=probe)

    async def status(self) -> IndexStatus:
        def collect() -> IndexStatus:
            documents = self.store.documents()
            failures = [doc for doc in documents.values() if doc.status == "failed"]
            return IndexStatus(
                counts=self.store.counts(),
                chunks=self.store.chunk_count(),
                failures=sorted(failures, key=lambda doc: doc.path)[:MAX_FAILURES_SHOWN],
                backend=self.store.backend,
                location=self.store.location,
                dense=self.embedder is not None,
                embeddings=self._embedding_status(),
                summaries=self._summary_status(),
            )

        return await asyncio.to_thread(collect)

    def _embedding_status(self) -> dict[str, object]:
        """Dense search: on (model, chunks by embedding status) or off (why, how to turn on)."""
        if self.embedder is None:
            off = dense_status()
            reason = off.reason or "no embedder was given to this index"
            return {"enabled": False, "reason": reason, "hint": off.hint}
        report: dict[str, object] = {"enabled": True, "model": self.embedder.model_id}
        report.update(self.store.embedding_counts())
        report["search"] = self.store.vector_search()
        failures = self.store.embedding_failures(MAX_FAILURES_SHOWN)
        if failures:
            report["failures"] = [{"path": p, "reason": r} for p, r in failures]
        if self.embeddings is not None and self.embeddings.error:
            report["error"] = self.embeddings.error
        if self.embeddings is not None and self.embeddings.retrying:
            report["retrying"] = self.embeddings.retrying
        return report

    def close(self) -> None:
        for task in self._summarizing:  # their documents stay ``chunked``: re-planned next time
            task.cancel()
        if self.embeddings is not None:
            self.embeddings.stop()
        self.store.close()
        close = getattr(self.summarizer, "close", None)  # a model summarizer's cache
        if close is not None:
            close()


def _written(plan: Plan) -> UpdateReport:
    """What writing a ``chunks`` or ``failed`` plan reports."""
    if plan.action == "failed":
        assert plan.record is not None
        return UpdateReport(failed={plan.path: plan.record.reason})
    return UpdateReport(indexed=[plan.path])
