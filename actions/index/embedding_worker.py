"""Fill in chunk vectors in the background, so BM25 search never waits for the model.

Chunks are written ``pending`` (searchable by BM25 at once); this worker takes them in
batches, embeds them off the event loop and stores each vector only if the chunk still has
the text that was embedded (a re-index meanwhile makes it pending again with a new hash).
A batch the model fails on is retried one text at a time, so only the texts that really fail
end ``failed`` with the reason. The queue is the store itself: a restart goes on where the
last process stopped, and chunks written before the extra was installed (``none``) are
queued when the worker first runs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from actions.index.embeddings import Embedder
from actions.index.model import EmbeddingResult, PendingEmbedding
from actions.index.store import Store

log = logging.getLogger(__name__)
BATCH = 64  # chunks per store round trip (the model runs them in sub-batches)
EmbedProgress = Callable[[int, int], None]  # (embedded so far, still pending when it started)


@dataclass
class EmbedReport:
    """What one drain did: vectors stored, chunks that failed."""

    embedded: int = 0
    failed: int = 0


class EmbeddingWorker:
    """The background embedder of one store."""

    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self.total = EmbedReport()
        self.error = ""
        self._task: asyncio.Task[None] | None = None
        self._again = False
        self._queued = False
        self.on_idle: Callable[[EmbedReport], None] | None = None  # after each background run
        self.idle = asyncio.Event()
        self.idle.set()

    def kick(self) -> None:
        """Make sure the pending chunks get embedded (starts a task, or makes the running one
        look again when it is done)."""
        self.idle.clear()
        if self._task is not None and not self._task.done():
            self._again = True
            return
        self._task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        done = EmbedReport()
        try:
            while True:
                self._again = False
                report = await self.drain()
                done.embedded += report.embedded
                done.failed += report.failed
                if not self._again:
                    break
        except Exception as error:  # the store went away: try again at the next kick
            log.exception("background embedding stopped")
            self.error = str(error)
        finally:
            self.idle.set()
        if self.on_idle is not None and (done.embedded or done.failed):
            self.on_idle(done)

    async def drain(self, progress: EmbedProgress | None = None) -> EmbedReport:
        """Embed every pending chunk (until none is left); what was done."""
        if not self._queued:
            await asyncio.to_thread(self.store.queue_embeddings)
            self._queued = True
        report = EmbedReport()
        total = (await asyncio.to_thread(self.store.embedding_counts))["pending"]
        while batch := await asyncio.to_thread(self.store.pending_embeddings, BATCH):
            results = await asyncio.to_thread(self._embed, batch)
            stored = await asyncio.to_thread(self.store.store_embeddings, results)
            failed = sum(1 for result in results if result.vector is None)
            report.embedded += max(0, stored - failed)
            report.failed += failed
            if stored == 0 and not failed:
                await asyncio.sleep(0)  # all replaced meanwhile: they come back with new ids
            if progress is not None:
                progress(report.embedded + report.failed, max(total, 1))
        self.total.embedded += report.embedded
        self.total.failed += report.failed
        self.error = ""
        return report

    def _embed(self, batch: list[PendingEmbedding]) -> list[EmbeddingResult]:
        try:
            vectors = self.embedder.embed([item.text for item in batch])
        except Exception:  # find the texts that fail, one at a time
            return [result for item in batch for result in self._embed_one(item)]
        return [
            EmbeddingResult(item.id, item.text_hash, vector)
            for item, vector in zip(batch, vectors, strict=True)
        ]

    def _embed_one(self, item: PendingEmbedding) -> list[EmbeddingResult]:
        try:
            (vector,) = self.embedder.embed([item.text])
        except Exception as error:
            reason = f"embedding failed: {type(error).__name__}: {error}"
            return [EmbeddingResult(item.id, item.text_hash, None, reason[:500])]
        return [EmbeddingResult(item.id, item.text_hash, vector)]

    def stop(self) -> None:
        """Cancel the background task (what it embedded is kept)."""
        if self._task is not None:
            self._task.cancel()
