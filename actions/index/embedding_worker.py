"""Fill in chunk vectors in the background, so BM25 search never waits for the model.

Chunks are written ``pending`` (searchable by BM25 at once); this worker takes them in
batches, embeds them off the event loop (on a niced index thread, pausing before each batch
while the server runs a chat turn: ``actions.index.background``) and stores each vector only
if the chunk still has the text that was embedded (a re-index meanwhile makes it pending
again with a new hash).
A batch the model fails on is retried one text at a time, so only the texts that really fail
end ``failed`` with the reason. A failed chunk is tried again, bounded: ``max_attempts`` tries
in all, after ``retry_delay`` seconds, then 4x longer each time (30 s, 2 min, 8 min); its reason
says which attempt it was and when the next is. After the last it stays ``failed`` until its
text changes or the next process starts (which gives every failed chunk a new series). The
queue is the store itself: a restart goes on where the last process stopped, and chunks
written before the extra was installed (``none``) are queued when the worker first runs.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from actions.index.background import run_low
from actions.index.embeddings import Embedder
from actions.index.model import EmbeddingResult, PendingEmbedding
from actions.index.store import Store

log = logging.getLogger(__name__)
BATCH = 64  # chunks per store round trip (the model runs them in sub-batches)
MAX_ATTEMPTS = 4  # tries of one chunk's text in one process
RETRY_DELAY = 30.0  # seconds before the first retry; each next waits BACKOFF times longer
BACKOFF = 4.0
Key = tuple[int, str]  # a chunk's row id and text hash
EmbedProgress = Callable[[int, int], None]  # (embedded so far, still pending when it started)


@dataclass
class EmbedReport:
    """What one drain did: vectors stored, chunks that failed."""

    embedded: int = 0
    failed: int = 0


class EmbeddingWorker:
    """The background embedder of one store."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        *,
        retry_delay: float = RETRY_DELAY,
        max_attempts: int = MAX_ATTEMPTS,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.retry_delay = retry_delay
        self.max_attempts = max_attempts
        self._attempts: dict[Key, int] = {}  # failed tries so far, by chunk text
        self._due: dict[Key, float] = {}  # failed chunks waiting for a retry: when (monotonic)
        self._timer: asyncio.TimerHandle | None = None
        self._stopped = False
        self.total = EmbedReport()
        self.error = ""
        self._task: asyncio.Task[None] | None = None
        self._again = False
        self._queued = False
        self.on_idle: Callable[[EmbedReport], None] | None = None  # after each background run
        self.idle = asyncio.Event()
        self.idle.set()
        self.pause: Callable[[], Awaitable[None]] | None = None  # before each batch

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
            self._schedule_retry()
        if self.on_idle is not None and (done.embedded or done.failed):
            self.on_idle(done)

    @property
    def retrying(self) -> int:
        """Failed chunks that will be tried again."""
        return len(self._due)

    def _schedule_retry(self) -> None:
        """Kick again when the first failed chunk is due for its next try."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._due and not self._stopped:
            wait = max(0.0, min(self._due.values()) - time.monotonic())
            self._timer = asyncio.get_running_loop().call_later(wait, self.kick)

    async def _requeue(self) -> None:
        """Failed chunks whose next try is due are ``pending`` again (a new process: all)."""
        if not self._queued:
            await asyncio.to_thread(self.store.queue_embeddings)
            await asyncio.to_thread(self.store.retry_embeddings, None)
            self._queued = True
        now = time.monotonic()
        due = [key for key, when in self._due.items() if when <= now]
        if due:
            await asyncio.to_thread(self.store.retry_embeddings, due)
            for key in due:
                del self._due[key]

    def _outcome(self, results: list[EmbeddingResult]) -> list[EmbeddingResult]:
        """Count the tries of each text; a failure's reason says which try and what next."""
        counted = []
        for result in results:
            key = (result.id, result.text_hash)
            if result.vector is not None:
                self._attempts.pop(key, None)
                counted.append(result)
                continue
            tries = self._attempts.get(key, 0) + 1
            self._attempts[key] = tries
            if tries < self.max_attempts:
                wait = self.retry_delay * BACKOFF ** (tries - 1)
                self._due[key] = time.monotonic() + wait
                then = f"tried again in {wait:.0f} s"
            else:
                then = "not tried again until its text changes or agent-ls restarts"
            note = f" (attempt {tries} of {self.max_attempts}; {then})"
            counted.append(replace(result, error=result.error[: 500 - len(note)] + note))
        return counted

    async def drain(self, progress: EmbedProgress | None = None) -> EmbedReport:
        """Embed every pending chunk (until none is left); what was done."""
        await self._requeue()
        report = EmbedReport()
        total = (await asyncio.to_thread(self.store.embedding_counts))["pending"]
        while batch := await asyncio.to_thread(self.store.pending_embeddings, BATCH):
            if self.pause is not None:
                await self.pause()
            results = self._outcome(await run_low(self._embed, batch))
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
        if len(batch) == 1:
            return self._embed_one(batch[0])
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
        """Cancel the background task and the retries (what it embedded is kept)."""
        self._stopped = True
        if self._timer is not None:
            self._timer.cancel()
        if self._task is not None:
            self._task.cancel()
