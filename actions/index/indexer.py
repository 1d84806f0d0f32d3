"""Keep a workspace's index up to date, incrementally, and search it.

Each covered file goes ``pending -> chunked -> ready`` or ``failed`` (with the reason). A file
whose size and modification time match its record is not read again; one whose content hash
matches is not re-chunked; removed files leave the index. Updates of one document run one at
a time (an asyncio lock), so the watcher and a full re-index can interleave safely.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from actions.index.chunking import (
    apply_summaries,
    chunk_document,
    pdf_chunks,
    summarized_by_model,
)
from actions.index.files import FileSet, IndexConfig
from actions.index.model import Chunk, DocumentRecord, Hit, IndexStatus
from actions.index.pdf import PdfError, pdf_to_markdown
from actions.index.store import Store
from actions.index.summary import Summarizer
from actions.paths import Workspace

log = logging.getLogger(__name__)
ProgressCallback = Callable[[int, int, str], None]
MAX_FAILURES_SHOWN = 50
BATCH_SECONDS = 0.5  # ... and spends at most this long planning one batch


def _failed(path: str, error: Exception) -> _Plan:
    log.error("indexing %s failed", path, exc_info=error)
    reason = f"indexing failed: {error!r}"
    return _Plan(path, "failed", DocumentRecord(path, "failed", reason=reason))


@dataclass
class _Plan:
    """What one document's update will write."""

    path: str
    action: Literal["skip", "remove", "unchanged", "touch", "failed", "chunks"]
    record: DocumentRecord | None = None
    chunks: list[Chunk] = field(default_factory=list)


def _same_stat(known: DocumentRecord | None, info: os.stat_result) -> bool:
    return (
        known is not None
        and known.status in ("ready", "failed")
        and (known.size, known.mtime_ns) == (info.st_size, info.st_mtime_ns)
    )


@dataclass
class UpdateReport:
    """What one update did, by path."""

    indexed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)

    def merge(self, other: UpdateReport) -> None:
        self.indexed += other.indexed
        self.unchanged += other.unchanged
        self.removed += other.removed
        self.failed.update(other.failed)

    @property
    def changed(self) -> list[str]:
        return self.indexed + self.removed + list(self.failed)


class WorkspaceIndex:
    """The index of one workspace: updates (full or by path), search and status."""

    def __init__(
        self,
        workspace: Workspace,
        store: Store,
        config: IndexConfig | None = None,
        summarizer: Summarizer | None = None,
    ) -> None:
        self.workspace = workspace
        self.store = store
        self.files = FileSet(workspace, config or IndexConfig())
        self.summarizer = summarizer
        self._lock = asyncio.Lock()

    async def update_all(self, progress: ProgressCallback | None = None) -> UpdateReport:
        """Bring the whole index up to date with the workspace."""
        paths = await self.files.list()
        known = await asyncio.to_thread(self.store.documents)
        report = UpdateReport()
        wanted = set(paths)
        for gone in sorted(set(known) - wanted):
            await asyncio.to_thread(self.store.remove_document, gone)
            report.removed.append(gone)
        marked = await asyncio.to_thread(self._mark_pending, paths, known)
        done = 0
        while done < len(paths):
            async with self._lock:  # a watcher's update waits for one batch at most
                plans = await asyncio.to_thread(self._plan_batch, paths[done:], known, marked)
                await asyncio.gather(*(self._summarize(plan) for plan in plans))
                report.merge(await asyncio.to_thread(self._write, plans))
            for plan in plans:
                done += 1
                if progress is not None:
                    progress(done, len(paths), plan.path)
        return report

    async def update_paths(self, paths: Iterable[str]) -> UpdateReport:
        """Re-index these workspace-relative paths (created, changed, renamed or deleted)."""
        given = {path.strip("/") for path in paths if path.strip("/")}
        known = await asyncio.to_thread(self.store.documents)
        below = {doc for doc in known for path in given if doc.startswith(path + "/")}
        inside = await asyncio.to_thread(self._files_below, given)
        wanted = sorted(given | below | inside)  # a folder: every file it holds / held
        ignored = await asyncio.to_thread(self.files.ignored, wanted)
        report = UpdateReport()
        for path in wanted:
            if path in ignored or self.files.skipped(path):
                if path in known:
                    await asyncio.to_thread(self.store.remove_document, path)
                    report.removed.append(path)
                continue
            report.merge(await self._update(path, known.get(path)))
        return report

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

    async def _update(self, path: str, known: DocumentRecord | None) -> UpdateReport:
        async with self._lock:
            plan = await asyncio.to_thread(self._safe_plan, path, known)
            await self._summarize(plan)
            return await asyncio.to_thread(self._write, [plan])

    def _plan_batch(
        self, paths: list[str], known: dict[str, DocumentRecord], marked: set[str]
    ) -> list[_Plan]:
        """Plan the first of ``paths`` until a batch is full (runs in a worker thread)."""
        plans: list[_Plan] = []
        started = time.monotonic()
        for path in paths[: self.files.config.batch_documents]:
            plans.append(self._safe_plan(path, known.get(path), listed=path in marked))
            if time.monotonic() - started >= BATCH_SECONDS:
                break
        return plans

    def _safe_plan(self, path: str, known: DocumentRecord | None, listed: bool = False) -> _Plan:
        try:
            return self._plan(path, known, listed)
        except Exception as error:  # one bad document never stops the others
            return _failed(path, error)

    async def _summarize(self, plan: _Plan) -> None:
        """Let the summarizer rewrite the summaries of tables and long code (if any)."""
        if self.summarizer is None or plan.record is None:
            return
        if not any(chunk.summary and summarized_by_model(chunk) for chunk in plan.chunks):
            return
        try:
            chunked = replace(plan.record, status="chunked")
            await asyncio.to_thread(self.store.replace_chunks, chunked, plan.chunks)
            plan.chunks = await apply_summaries(plan.chunks, self.summarizer)
        except Exception as error:  # the fallback summaries stay
            log.warning("summarizing %s failed: %r", plan.path, error)

    def _write(self, plans: list[_Plan]) -> UpdateReport:
        """Write plans in one batch of the store (runs in a worker thread)."""
        report = UpdateReport()
        with self.store.batch():
            for plan in plans:
                try:
                    report.merge(self._apply(plan))
                except Exception as error:
                    report.merge(self._apply(_failed(plan.path, error)))
        return report

    def _plan(self, path: str, known: DocumentRecord | None, listed: bool = False) -> _Plan:
        """Everything but the writes: stat, read, check, chunk (runs in a worker thread)."""
        info = self.files.stat(path)
        if info is None and listed:  # marked pending by a full build, then gone
            reason = "deleted while being indexed"
            return _Plan(path, "failed", DocumentRecord(path, "failed", reason=reason))
        if info is None or stat.S_ISDIR(info.st_mode):
            return _Plan(path, "remove" if known is not None else "skip")
        if _same_stat(known, info):
            return _Plan(path, "unchanged")
        read = self.files.read(path, info)
        record = DocumentRecord(path, "ready", read.content_hash, read.size, read.mtime_ns)
        if read.text is None:
            return _Plan(path, "failed", replace(record, status="failed", reason=read.reason))
        if (
            known is not None
            and known.status == "ready"
            and known.content_hash == read.content_hash
        ):
            return _Plan(path, "touch", replace(record, chunks=known.chunks))
        if read.pdf is not None:
            return self._plan_pdf(path, replace(record, content_hash=read.content_hash), read.pdf)
        chunks = chunk_document(path, read.text)
        return _Plan(path, "chunks", replace(record, chunks=len(chunks)), chunks)

    def _plan_pdf(self, path: str, record: DocumentRecord, data: bytes) -> _Plan:
        try:
            converted = pdf_to_markdown(data)
        except PdfError as error:
            return _Plan(path, "failed", replace(record, status="failed", reason=str(error)))
        chunks = pdf_chunks(path, converted)
        return _Plan(path, "chunks", replace(record, chunks=len(chunks)), chunks)

    def _apply(self, plan: _Plan) -> UpdateReport:
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
        self.store.replace_chunks(plan.record, plan.chunks)
        if plan.action == "failed":
            return UpdateReport(failed={plan.path: plan.record.reason})
        return UpdateReport(indexed=[plan.path])

    def _mark_pending(self, paths: list[str], known: dict[str, DocumentRecord]) -> set[str]:
        """Record ``pending`` for every file whose size or time changed (one transaction)."""
        stale = []
        for path in paths:
            info = self.files.stat(path)
            if (
                info is not None
                and not stat.S_ISDIR(info.st_mode)
                and not _same_stat(known.get(path), info)
            ):
                old = known.get(path)
                stale.append(
                    replace(old, status="pending") if old else DocumentRecord(path, "pending")
                )
        if stale:
            self.store.put_documents(stale)
        return {record.path for record in stale}

    async def search(self, query: str, k: int = 8) -> list[Hit]:
        """The ``k`` best original elements for ``query``."""
        return await asyncio.to_thread(self.store.search, query, k)

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
            )

        return await asyncio.to_thread(collect)

    def close(self) -> None:
        self.store.close()
        close = getattr(self.summarizer, "close", None)  # a model summarizer's cache
        if close is not None:
            close()
