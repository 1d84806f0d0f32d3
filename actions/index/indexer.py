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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from actions.index.chunking import apply_summaries, chunk_document
from actions.index.files import FileSet, IndexConfig
from actions.index.model import DocumentRecord, Hit, IndexStatus
from actions.index.store import Store
from actions.index.summary import Summarizer
from actions.paths import Workspace

log = logging.getLogger(__name__)
ProgressCallback = Callable[[int, int, str], None]
MAX_FAILURES_SHOWN = 50


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
        for done, path in enumerate(paths, 1):
            report.merge(await self._update(path, known.get(path)))
            if progress is not None:
                progress(done, len(paths), path)
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
            try:
                return await self._update_locked(path, known)
            except Exception as error:  # one bad document never stops the others
                log.exception("indexing %s failed", path)
                reason = f"indexing failed: {error!r}"
                record = DocumentRecord(path, "failed", reason=reason)
                await asyncio.to_thread(self.store.replace_chunks, record, [])
                return UpdateReport(failed={path: reason})

    async def _update_locked(self, path: str, known: DocumentRecord | None) -> UpdateReport:
        store = self.store
        info = await asyncio.to_thread(self.files.stat, path)
        if info is None or (info.st_mode & 0o170000) == 0o040000:
            if known is not None:
                await asyncio.to_thread(store.remove_document, path)
                return UpdateReport(removed=[path])
            return UpdateReport()
        same_stat = (
            known is not None
            and known.status in ("ready", "failed")
            and (known.size, known.mtime_ns) == (info.st_size, info.st_mtime_ns)
        )
        if same_stat:
            return UpdateReport(unchanged=[path])
        read = await asyncio.to_thread(self.files.read, path, info)
        record = DocumentRecord(path, "pending", read.content_hash, read.size, read.mtime_ns)
        if read.text is None:
            failed = replace(record, status="failed", reason=read.reason)
            await asyncio.to_thread(store.replace_chunks, failed, [])
            return UpdateReport(failed={path: read.reason})
        if (
            known is not None
            and known.status == "ready"
            and known.content_hash == read.content_hash
        ):
            await asyncio.to_thread(
                store.put_document, replace(record, status="ready", chunks=known.chunks)
            )
            return UpdateReport(unchanged=[path])
        await asyncio.to_thread(store.put_document, record)
        chunks = await asyncio.to_thread(chunk_document, path, read.text)
        chunked = replace(record, status="chunked", chunks=len(chunks))
        await asyncio.to_thread(store.replace_chunks, chunked, chunks)
        if self.summarizer is not None and any(chunk.summary for chunk in chunks):
            chunks = await apply_summaries(chunks, self.summarizer)
            await asyncio.to_thread(store.replace_chunks, chunked, chunks)
        await asyncio.to_thread(store.put_document, replace(chunked, status="ready"))
        return UpdateReport(indexed=[path])

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
