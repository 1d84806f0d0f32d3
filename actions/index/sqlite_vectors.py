"""Exact cosine search for the SQLite index: vectors as float32 blobs, one numpy matrix in memory.

This Python's sqlite3 cannot load extensions (no sqlite-vec), and exact search is fast enough:
the matrix of every ``ready`` vector is read once, then each query is one matrix-vector
product (100k x 384 float32: ~10 ms on one core) and a partial sort. Writes of this process
are applied as deltas at the next search (removed row ids masked out, new rows appended);
a write by another process (``agent-ls index`` beside the server) changes SQLite's
``data_version`` and the matrix is read again. numpy is imported only here, only with the
``embeddings`` extra.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from actions.index.model import EMBEDDING_STATUSES, EmbeddingResult, PendingEmbedding

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


def pack(vector: Sequence[float] | None) -> bytes | None:
    """A vector as a float32 blob (None stays None)."""
    if vector is None:
        return None
    if hasattr(vector, "astype"):  # a numpy row
        return bytes(vector.astype("float32").tobytes())
    import array

    return array.array("f", vector).tobytes()


class VectorCache:
    """The unit vectors of one SQLite index by chunk row id, kept in step with the writes."""

    def __init__(self) -> None:
        self._ids: npt.NDArray[np.int64] | None = None
        self._matrix: npt.NDArray[np.float32] | None = None
        self._version = -1
        self._removed: set[int] = set()
        self._added: dict[int, bytes] = {}

    def removed(self, ids: Iterable[int]) -> None:
        """Rows deleted by this process (applied at the next search)."""
        if self._ids is None:
            return
        for row_id in ids:
            self._added.pop(row_id, None)
            self._removed.add(row_id)

    def added(self, rows: Iterable[tuple[int, object]]) -> None:
        """Rows given a vector by this process."""
        if self._ids is not None:
            self._added.update((row_id, blob) for row_id, blob in rows if isinstance(blob, bytes))

    def invalidate(self) -> None:
        self._ids = self._matrix = None
        self._removed.clear()
        self._added.clear()

    def _load(self, db: sqlite3.Connection) -> None:
        import numpy as np

        rows = db.execute(
            "SELECT id, embedding FROM chunks WHERE embedding_status = 'ready'"
            " AND embedding IS NOT NULL"
        ).fetchall()
        self._removed.clear()
        self._added.clear()
        self._ids, self._matrix = _stack(np, [row[0] for row in rows], [row[1] for row in rows])

    def _apply(self) -> None:
        import numpy as np

        assert self._ids is not None
        assert self._matrix is not None
        ids, matrix = self._ids, self._matrix
        if self._removed:
            keep = ~np.isin(ids, np.fromiter(self._removed, dtype=np.int64))
            ids, matrix = ids[keep], matrix[keep]
        if self._added:
            more_ids, more = _stack(np, list(self._added), list(self._added.values()))
            if more.shape[0] and (not matrix.shape[0] or more.shape[1] != matrix.shape[1]):
                ids, matrix = more_ids, more  # the first vectors, or the model changed
            elif more.shape[0]:
                ids, matrix = np.concatenate([ids, more_ids]), np.vstack([matrix, more])
        self._ids, self._matrix = ids, matrix
        self._removed.clear()
        self._added.clear()

    def nearest(
        self, db: sqlite3.Connection, vector: Sequence[float], k: int, floor: float = -1.0
    ) -> list[int]:
        """Row ids of the ``k`` vectors nearest ``vector`` by cosine similarity, of at least
        ``floor``, best first. ``db``'s lock is held."""
        import numpy as np

        (version,) = db.execute("PRAGMA data_version").fetchone()
        if self._ids is None or version != self._version:
            self._load(db)
            self._version = version
        elif self._removed or self._added:
            self._apply()
        assert self._ids is not None
        assert self._matrix is not None
        query = np.asarray(vector, dtype=np.float32)
        if not self._matrix.shape[0] or self._matrix.shape[1] != query.shape[0]:
            return []
        norm = float(np.linalg.norm(query))
        scores = self._matrix @ (query / norm if norm else query)
        if k < scores.shape[0]:
            best = np.argpartition(-scores, k)[:k]
        else:
            best = np.arange(scores.shape[0])
        best = best[np.argsort(-scores[best], kind="stable")]
        best = best[scores[best] >= floor]
        return [int(row_id) for row_id in self._ids[best]]


def _stack(np: Any, ids: list[int], blobs: list[bytes]) -> tuple[Any, Any]:
    """``(ids, unit-length matrix)`` of the blobs of the most common size (rows of another
    size, left by an earlier model, are skipped)."""
    if not blobs:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
    sizes: dict[int, int] = {}
    for blob in blobs:
        sizes[len(blob)] = sizes.get(len(blob), 0) + 1
    size = max(sizes, key=lambda s: sizes[s])
    keep = [i for i, blob in enumerate(blobs) if len(blob) == size]
    matrix = np.frombuffer(b"".join(blobs[i] for i in keep), dtype=np.float32)
    matrix = matrix.reshape(len(keep), size // 4)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)  # the model's are 1 already
    matrix = matrix / np.where(norms > 0, norms, 1.0)
    return np.asarray([ids[i] for i in keep], dtype=np.int64), matrix


class SqliteEmbeddings:
    """The embedding lifecycle of ``SqliteStore``: queue, hand out, store and count."""

    _db: sqlite3.Connection
    _lock: threading.Lock
    _vectors: VectorCache

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
            self._vectors.added((row_id, blob) for row_id, _, blob, _ in done if blob)
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
