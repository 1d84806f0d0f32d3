"""Planning a document's update: stat, read, check, chunk — everything but the writes.

``plan_document`` is pure work on one file (no store), so a full build can run it for many
files at once: ``Planner`` plans in a worker thread, batch by batch, or — when a build has
at least ``IndexConfig.parallel_min`` files to read — in worker processes (one per core, at most
``MAX_WORKERS``; Python's chunking is CPU-bound and the GIL would keep it on one core), a
bounded window of parts in flight, results in order. A pool that cannot start or breaks
leaves the remaining parts to the worker thread.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import stat
import time
from collections import deque
from collections.abc import AsyncGenerator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from typing import Literal

from actions.index.chunking import chunk_document, pdf_chunks
from actions.index.files import FileSet
from actions.index.model import Chunk, DocumentRecord
from actions.index.pdf import PdfError, pdf_to_markdown

log = logging.getLogger(__name__)
BATCH_SECONDS = 0.5  # a worker thread plans at most this long before the batch is written
MAX_WORKERS = 4
PART = 48  # documents per task sent to a worker process
WINDOW = 3  # parts in flight per worker

Item = tuple[str, DocumentRecord | None, bool]  # path, what the index knows, listed by a build


@dataclass
class Plan:
    """What one document's update will write."""

    path: str
    action: Literal["skip", "remove", "unchanged", "touch", "failed", "chunks"]
    record: DocumentRecord | None = None
    chunks: list[Chunk] = field(default_factory=list)


def same_stat(known: DocumentRecord | None, info: os.stat_result) -> bool:
    return (
        known is not None
        and known.status in ("ready", "failed")
        and (known.size, known.mtime_ns) == (info.st_size, info.st_mtime_ns)
    )


def failed_plan(path: str, error: Exception) -> Plan:
    log.error("indexing %s failed", path, exc_info=error)
    reason = f"indexing failed: {error!r}"
    return Plan(path, "failed", DocumentRecord(path, "failed", reason=reason))


def plan_document(files: FileSet, path: str, known: DocumentRecord | None, listed: bool) -> Plan:
    """The plan of one document; never raises (an error is the document's failure)."""
    try:
        return _plan(files, path, known, listed)
    except Exception as error:  # one bad document never stops the others
        return failed_plan(path, error)


def _plan(files: FileSet, path: str, known: DocumentRecord | None, listed: bool) -> Plan:
    info = files.stat(path)
    if info is None and listed:  # marked pending by a full build, then gone
        reason = "deleted while being indexed"
        return Plan(path, "failed", DocumentRecord(path, "failed", reason=reason))
    if info is None or stat.S_ISDIR(info.st_mode):
        return Plan(path, "remove" if known is not None else "skip")
    if same_stat(known, info):
        return Plan(path, "unchanged")
    read = files.read(path, info)
    record = DocumentRecord(path, "ready", read.content_hash, read.size, read.mtime_ns)
    if read.text is None:
        return Plan(path, "failed", replace(record, status="failed", reason=read.reason))
    if known is not None and known.status == "ready" and known.content_hash == read.content_hash:
        return Plan(path, "touch", replace(record, chunks=known.chunks))
    if read.pdf is not None:
        try:
            chunks = pdf_chunks(path, pdf_to_markdown(read.pdf))
        except PdfError as error:
            return Plan(path, "failed", replace(record, status="failed", reason=str(error)))
    else:
        chunks = chunk_document(path, read.text)
    return Plan(path, "chunks", replace(record, chunks=len(chunks)), chunks)


def stale(files: FileSet, plan: Plan) -> bool:
    """Whether the file changed since ``plan`` read it (planned outside the index's lock)."""
    if plan.record is None or plan.action not in ("chunks", "touch") or not plan.record.mtime_ns:
        return False
    info = files.stat(plan.path)
    return info is None or (info.st_size, info.st_mtime_ns) != (
        plan.record.size,
        plan.record.mtime_ns,
    )


def _plan_batch(files: FileSet, items: Sequence[Item], limit: int) -> list[Plan]:
    plans: list[Plan] = []
    started = time.monotonic()
    for item in items[:limit]:
        plans.append(plan_document(files, *item))
        if time.monotonic() - started >= BATCH_SECONDS:
            break
    return plans


_FILES: FileSet | None = None  # a worker process's


def _start_worker(files: FileSet) -> None:
    global _FILES
    _FILES = files


def _plan_part(items: Sequence[Item]) -> list[Plan]:
    assert _FILES is not None
    return [plan_document(_FILES, *item) for item in items]


def workers() -> int:
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return min(MAX_WORKERS, available or os.cpu_count() or 1)


class Planner:
    """Plans of many documents, in order, batch by batch (see the module docstring)."""

    def __init__(self, files: FileSet) -> None:
        self.files = files

    async def batches(self, items: list[Item], parallel: bool) -> AsyncGenerator[list[Plan], None]:
        pool = self._pool() if parallel and workers() > 1 else None
        if pool is None:
            done = 0
            while done < len(items):
                limit = self.files.config.batch_documents
                batch = await asyncio.to_thread(_plan_batch, self.files, items[done:], limit)
                done += len(batch)
                yield batch
            return
        parts = [items[start : start + PART] for start in range(0, len(items), PART)]
        pending: deque[tuple[list[Item], Future[list[Plan]] | None]] = deque()
        try:
            for part in parts:
                pending.append((part, self._submit(pool, part)))
                while len(pending) >= WINDOW * workers():
                    yield await self._result(*pending.popleft())
            while pending:
                yield await self._result(*pending.popleft())
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _pool(self) -> ProcessPoolExecutor | None:
        try:
            return ProcessPoolExecutor(
                workers(),
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(self.files,),
            )
        except (OSError, ValueError, NotImplementedError) as error:
            log.warning("no worker processes (%s): planning in one thread", error)
            return None

    @staticmethod
    def _submit(pool: ProcessPoolExecutor, part: list[Item]) -> Future[list[Plan]] | None:
        try:
            return pool.submit(_plan_part, part)
        except (BrokenProcessPool, RuntimeError):
            return None

    async def _result(self, part: list[Item], future: Future[list[Plan]] | None) -> list[Plan]:
        if future is not None:
            try:
                return await asyncio.wrap_future(future)
            except (BrokenProcessPool, OSError) as error:
                log.warning("a worker process failed (%s): planning in this process", error)
        return await asyncio.to_thread(lambda: [plan_document(self.files, *i) for i in part])
