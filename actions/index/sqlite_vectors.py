"""The embedding lifecycle of the SQLite index: vectors as float32 blobs in ``chunks``.

The nearest-neighbour search over them (an HNSW graph file beside the SQLite file, plus
exact search of what is newer) is in ``sqlite_ann``. numpy is imported only there, only with
the ``embeddings`` extra.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager

from actions.index.model import EMBEDDING_STATUSES, EmbeddingResult, PendingEmbedding
from actions.index.sqlite_ann import VectorIndex


def pack(vector: Sequence[float] | None) -> bytes | None:
    """A vector as a float32 blob (None stays None)."""
    if vector is None:
        return None
    if hasattr(vector, "astype"):  # a numpy row
        return bytes(vector.astype("float32").tobytes())
    import array

    return array.array("f", vector).tobytes()


class SqliteEmbeddings:
    """The embedding lifecycle of ``SqliteStore``: queue, hand out, store and count."""

    _db: sqlite3.Connection
    _lock: threading.Lock
    _vectors: VectorIndex

    def _transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError

    def queue_embeddings(self) -> int:
        """Mark the chunks written without an embedder ``pending``; how many there were."""
        with self._transaction() as db:
            cursor = db.execute(
                "UPDATE chunks SET embedding_status = 'pending' WHERE embedding_status = 'none'"
            )
            return int(cursor.rowcount)

    def pending_embeddings(self, limit: int) -> list[PendingEmbedding]:
        """Up to ``limit`` chunks waiting for their vector, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, text_hash, indexed_text FROM chunks"
                " WHERE embedding_status = 'pending' ORDER BY id LIMIT ?",
                (limit,),
            ).fetchall()
        return [PendingEmbedding(*row) for row in rows]

    def store_embeddings(self, results: Sequence[EmbeddingResult]) -> int:
        """Store vectors (or failures) of chunks that still have that text; how many did."""
        done = [(r.id, r.text_hash, pack(r.vector), r.error) for r in results]
        with self._transaction() as db:
            stored = 0
            for row_id, digest, blob, error in done:
                cursor = db.execute(
                    "UPDATE chunks SET embedding = ?, embedding_status = ?, embedding_error = ?"
                    " WHERE id = ? AND text_hash = ? AND embedding_status = 'pending'",
                    (blob, "ready" if blob else "failed", error, row_id, digest),
                )
                stored += cursor.rowcount
        return stored

    def retry_embeddings(self, keys: Sequence[tuple[int, str]] | None = None) -> int:
        """Make failed chunks pending again (``keys``: those ``(id, text_hash)``; else all)."""
        retry = "UPDATE chunks SET embedding_status = 'pending' WHERE embedding_status = 'failed'"
        with self._transaction() as db:
            if keys is None:
                return int(db.execute(retry).rowcount)
            return sum(
                db.execute(retry + " AND id = ? AND text_hash = ?", key).rowcount for key in keys
            )

    def embedding_counts(self) -> dict[str, int]:
        """Chunks by embedding status (every status present, zero included)."""
        with self._lock:
            found = dict(
                self._db.execute(
                    "SELECT embedding_status, count(*) FROM chunks GROUP BY embedding_status"
                ).fetchall()
            )
        return {status: int(found.get(status, 0)) for status in EMBEDDING_STATUSES}

    def embedding_failures(self, limit: int) -> list[tuple[str, str]]:
        """``(document, reason)`` of chunks whose embedding failed."""
        with self._lock:
            rows = self._db.execute(
                "SELECT document, embedding_error FROM chunks WHERE embedding_status = 'failed'"
                " ORDER BY id LIMIT ?",
                (limit,),
            ).fetchall()
        return [(str(path), str(reason)) for path, reason in rows]

    def vector_index(self) -> dict[str, object]:
        """How the nearest-neighbour search runs now (``hnsw`` or ``exact``, sizes, file)."""
        return self._vectors.describe()

    def vector_search(self) -> dict[str, object]:
        described = self._vectors.describe()
        report = {"kind": described["kind"], "building": described.get("building", False)}
        if described.get("pending"):  # a graph is due and nobody builds it yet
            report["pending"] = True
        if described.get("progress"):  # a graph being built: vectors added of those to add
            report["progress"] = described["progress"]
        if described.get("graph"):
            report["vectors"] = described["graph"]
        if described.get("error"):
            report["error"] = described["error"]
        return report

    def no_graph_builds(self) -> None:
        """Never start building the vector graph (a process that searches once and exits:
        exact search until a longer-lived process builds the graph)."""
        self._vectors.builds = False

    def graph_due(self) -> bool:
        """Whether the vector graph should be built now (for another process to build it)."""
        with self._lock:
            return self._vectors.graph_due(self._db)

    def wait_for_vector_index(self, timeout: float | None = None) -> bool:
        """Bring the vector index up to date and wait for a build it starts (True: done)."""
        return self._vectors.wait(self._db, timeout)
