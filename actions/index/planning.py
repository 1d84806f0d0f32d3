"""Planning a document's update: stat, read, check, chunk — everything but the writes.

``plan_document`` is pure work on one file (no store, never raises); ``Planner`` plans a full
build's files in a worker thread, batch by batch (``IndexConfig.batch_documents`` files or
``BATCH_SECONDS``, whichever comes first), so each batch is written in one transaction.
(Worker processes were measured: on a shared 2-core machine they made a 10k-file build
slower — spawn start-up, and the kernel's per-session CPU share — so planning stays in one.)
"""

from __future__ import annotations

import logging
import os
import stat
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from actions.index.background import run_low
from actions.index.chunking import chunk_document, pdf_chunks
from actions.index.files import FileSet
from actions.index.model import Chunk, DocumentRecord
from actions.index.pdf import PdfError
from actions.index.pdf_process import convert_pdf

log = logging.getLogger(__name__)
DELETED_WHILE_INDEXED = "deleted while being indexed"
BATCH_SECONDS = 0.5  # a worker thread plans at most this long before the batch is written

Pause = Callable[[], Awaitable[None]]  # awaited between batches: yields to the foreground
Item = tuple[str, DocumentRecord | None, bool]  # path, what the index knows, listed by a build


@dataclass
class Plan:
    """What one document's update will write."""

    path: str
    # resume: chunked (written, its summaries not yet) when the last process stopped
    action: Literal["skip", "remove", "unchanged", "touch", "resume", "failed", "chunks"]
    record: DocumentRecord | None = None
    chunks: list[Chunk] = field(default_factory=list)
    summarized: bool = False  # the model rewrote a summary of its chunks


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
        failed = DocumentRecord(path, "failed", reason=DELETED_WHILE_INDEXED)
        return Plan(path, "failed", failed)
    if info is None or stat.S_ISDIR(info.st_mode):
        return Plan(path, "remove" if known is not None else "skip")
    if same_stat(known, info):
        return Plan(path, "unchanged")
    if (
        known is not None
        and known.status == "chunked"
        and known.content_hash
        and (known.size, known.mtime_ns) == (info.st_size, info.st_mtime_ns)
    ):
        return Plan(path, "resume", known)
    read = files.read(path, info)
    record = DocumentRecord(path, "ready", read.content_hash, read.size, read.mtime_ns)
    if read.text is None:
        return Plan(path, "failed", replace(record, status="failed", reason=read.reason))
    if known is not None and known.status == "ready" and known.content_hash == read.content_hash:
        return Plan(path, "touch", replace(record, chunks=known.chunks))
    if read.pdf is not None:
        try:
            converted = convert_pdf(read.pdf)  # a child process: bounded memory and time
        except PdfError as error:
            return Plan(path, "failed", replace(record, status="failed", reason=str(error)))
        if not converted.markdown.strip():
            reason = "no text in the PDF (scanned pages? no OCR is done)"
            return Plan(path, "failed", replace(record, status="failed", reason=reason))
        chunks = pdf_chunks(path, converted)
    else:
        chunks = chunk_document(path, read.text)
    return Plan(path, "chunks", replace(record, chunks=len(chunks)), chunks)


def stale(files: FileSet, plan: Plan) -> bool:
    """Whether the file changed since ``plan`` read it (planned outside the index's lock)."""
    if plan.record is None or plan.action not in ("chunks", "touch", "resume"):
        return False
    if not plan.record.mtime_ns:
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


class Planner:
    """Plans of many documents, in order, batch by batch (see the module docstring), on a
    niced index thread; ``pause`` is awaited before each batch (the server's foreground)."""

    def __init__(self, files: FileSet, pause: Pause | None = None) -> None:
        self.files = files
        self.pause = pause

    async def batches(self, items: list[Item]) -> AsyncGenerator[list[Plan], None]:
        done = 0
        while done < len(items):
            if self.pause is not None:
                await self.pause()
            limit = self.files.config.batch_documents
            batch = await run_low(_plan_batch, self.files, items[done:], limit)
            done += len(batch)
            yield batch
