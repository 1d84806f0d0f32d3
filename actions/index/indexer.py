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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from actions.index.chunking import apply_summaries, chunk_document
from actions.index.embedding_worker import EmbeddingWorker
from actions.index.embeddings import Embedder, dense_status
from actions.index.files import FileSet, IndexConfig
from actions.index.model import Chunk, DocumentRecord, Hit, IndexStatus
from actions.index.store import Store
from actions.index.summary import Summarizer
from actions.paths import Workspace

log = logging.getLogger(__name__)
ProgressCallback = Callable[[int, int, str], None]
MAX_FAILURES_SHOWN = 50


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
        embedder: Embedder | None = None,
    ) -> None:
        self.workspace = workspace
        self.store = store
        self.files = FileSet(workspace, config or IndexConfig())
        self.summarizer = summarizer
        self.embedder = embedder  # None: BM25 only
        self.embeddings = EmbeddingWorker(store, embedder) if embedder else None
        self.embed_in_background = True  # False: pending chunks wait for another process
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
        await asyncio.to_thread(self._mark_pending, paths, known)
        for done, path in enumerate(paths, 1):
            report.merge(await self._update(path, known.get(path)))
            if progress is not None:
                progress(done, len(paths), path)
        self._embed_later()
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
        self._embed_later()
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

    async def _update(self, path: str, known: DocumentRecord | None) -> UpdateReport:
        async with self._lock:
            try:
                plan = await asyncio.to_thread(self._plan, path, known)
                if plan.chunks and plan.record is not None and self.summarizer is not None:
                    chunked = replace(plan.record, status="chunked")
                    await asyncio.to_thread(self.store.replace_chunks, chunked, plan.chunks)
                    plan.chunks = await apply_summaries(plan.chunks, self.summarizer)
                return await asyncio.to_thread(self._apply, plan)
            except Exception as error:  # one bad document never stops the others
                log.exception("indexing %s failed", path)
                reason = f"indexing failed: {error!r}"
                record = DocumentRecord(path, "failed", reason=reason)
                await asyncio.to_thread(self.store.replace_chunks, record, [])
                return UpdateReport(failed={path: reason})

    def _plan(self, path: str, known: DocumentRecord | None) -> _Plan:
        """Everything but the writes: stat, read, check, chunk (runs in a worker thread)."""
        info = self.files.stat(path)
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
        chunks = chunk_document(path, read.text)
        if self.embedder is not None:
            chunks = [replace(chunk, embedding_status="pending") for chunk in chunks]
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

    def _mark_pending(self, paths: list[str], known: dict[str, DocumentRecord]) -> None:
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
        """Load what the first hybrid search would (the embedded store's vector matrix: seconds
        at 100k chunks), so that a user's first search does not wait for it."""
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
        failures = self.store.embedding_failures(MAX_FAILURES_SHOWN)
        if failures:
            report["failures"] = [{"path": p, "reason": r} for p, r in failures]
        if self.embeddings is not None and self.embeddings.error:
            report["error"] = self.embeddings.error
        return report

    def close(self) -> None:
        if self.embeddings is not None:
            self.embeddings.stop()
        self.store.close()
