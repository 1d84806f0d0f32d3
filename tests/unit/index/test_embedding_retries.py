"""A failed embedding is tried again, with backoff and a bound, and status says so: the
background worker on a real store (SQLite and a real PostgreSQL) with an embedder that fails
on some texts (a model that runs out of memory, a broken extra), waiting on its events."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from actions.index.embedding_worker import EmbeddingWorker, EmbedReport
from actions.index.indexer import WorkspaceIndex
from actions.index.model import Chunk, DocumentRecord
from actions.index.sqlite_store import SqliteStore
from actions.index.store import Store
from actions.paths import Workspace
from tests.unit.index.test_store import backend, store

__all__ = ["backend", "store"]  # the fixtures, parametrized over the backends


class FlakyEmbedder:
    """Fails on texts containing ``word`` for its first ``failures`` tries, else a vector."""

    model_id = "flaky-test-model"
    dimension = 3

    def __init__(self, word: str, failures: int) -> None:
        self.word = word
        self.failures = failures
        self.tries = 0  # of texts with the word

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        if any(self.word in text for text in texts):
            if len(texts) == 1:
                self.tries += 1
            if self.failures is None or self.tries <= self.failures or len(texts) > 1:
                raise MemoryError("the model ran out of memory")
        return [(1.0, 0.0, 0.0) for _ in texts]


def write(store: Store) -> None:
    chunks = [
        Chunk("a.md", i, "text", text, f"a.md\n\n{text}", embedding_status="pending")
        for i, text in enumerate(["a calm paragraph", "a cursed paragraph"])
    ]
    store.replace_chunks(DocumentRecord("a.md", "ready", "h", 1, 1, chunks=2), chunks)


class Runs:
    """The worker's background runs, as they end (``on_idle``), with the store's failures
    read at that moment: a retry due in 10 ms makes a failed chunk pending again, possibly
    before the test reads the store on a loaded machine."""

    def __init__(self, worker: EmbeddingWorker) -> None:
        self.reports: list[EmbedReport] = []
        self.failures: list[list[tuple[str, str]]] = []
        self.ended = asyncio.Event()
        self.store = worker.store
        worker.on_idle = self.add

    def add(self, report: EmbedReport) -> None:
        self.reports.append(report)
        self.failures.append(self.store.embedding_failures(10))
        self.ended.set()

    async def until(self, count: int) -> None:
        while len(self.reports) < count:
            self.ended.clear()
            await asyncio.wait_for(self.ended.wait(), 20)


async def test_a_failed_embedding_is_retried_and_then_stored(store: Store) -> None:
    write(store)
    embedder = FlakyEmbedder("cursed", failures=2)
    worker = EmbeddingWorker(store, embedder, retry_delay=0.01)  # type: ignore[arg-type]
    runs = Runs(worker)
    worker.kick()
    await runs.until(1)
    assert (runs.reports[0].embedded, runs.reports[0].failed) == (1, 1)
    ((path, reason),) = runs.failures[0]
    assert path == "a.md"
    assert reason.startswith("embedding failed: MemoryError: the model ran out of memory")
    assert "(attempt 1 of 4; tried again in 0 s)" in reason
    await runs.until(3)  # the second try fails too, the third works
    assert [(r.embedded, r.failed) for r in runs.reports] == [(1, 1), (0, 1), (1, 0)]
    assert store.embedding_counts() == {"none": 0, "pending": 0, "ready": 2, "failed": 0}
    assert (worker.retrying, embedder.tries) == (0, 3)
    worker.stop()


async def test_retries_are_bounded_and_a_new_worker_tries_again(store: Store) -> None:
    write(store)
    embedder = FlakyEmbedder("cursed", failures=1000)
    worker = EmbeddingWorker(store, embedder, retry_delay=0.01, max_attempts=3)  # type: ignore[arg-type]
    runs = Runs(worker)
    worker.kick()
    await runs.until(3)
    await worker.idle.wait()
    assert (embedder.tries, worker.retrying) == (3, 0)  # no fourth try is scheduled
    ((_, reason),) = store.embedding_failures(10)
    assert reason.endswith(
        "(attempt 3 of 3; not tried again until its text changes or agent-ls restarts)"
    )
    assert store.embedding_counts()["failed"] == 1
    worker.stop()
    embedder.failures = 3  # fixed meanwhile (a restart after installing what was missing)
    restarted = EmbeddingWorker(store, embedder, retry_delay=0.01)  # type: ignore[arg-type]
    again = Runs(restarted)
    restarted.kick()
    await again.until(1)
    assert store.embedding_counts() == {"none": 0, "pending": 0, "ready": 2, "failed": 0}
    restarted.stop()


async def test_status_shows_failed_counts_reasons_and_retries(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.md").write_text("A calm paragraph.\n\nThen a cursed paragraph follows it.\n")
    store = SqliteStore(tmp_path / "index.sqlite3")
    embedder = FlakyEmbedder("cursed", failures=1000)
    index = WorkspaceIndex(Workspace(root), store, embedder=embedder)  # type: ignore[arg-type]
    assert index.embeddings is not None
    runs = Runs(index.embeddings)
    await index.update_all()
    await runs.until(1)
    dense = (await index.status()).to_json()["embeddings"]
    assert (dense["failed"], dense["retrying"]) == (1, 1)  # the next try is 30 s away
    ((failure),) = dense["failures"]
    assert failure["path"] == "a.md"
    assert failure["reason"].endswith("(attempt 1 of 4; tried again in 30 s)")
    index.close()
