"""The vectors of ``PgStore``: the embedding lifecycle (queue, hand out, store and count chunk
vectors), their HNSW indexes and the nearest neighbours of a query's vector.

Vectors live in the ``embedding vector`` column (an HNSW index per dimension in use); a
chunk goes ``pending -> ready`` (or ``failed`` with ``embedding_error``) as the background
embedder fills it in, and keeps its vector through a re-index when its ``text_hash`` (model +
embedded text) did not change.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

from actions.index.model import EMBEDDING_STATUSES, EmbeddingResult, PendingEmbedding
from actions.index.pg_schema import SCHEMA


def vector_literal(vector: Sequence[float] | None) -> str | None:
    """pgvector's text form of ``vector``."""
    if vector is None:
        return None
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


class PgEmbeddings:
    """Mixed into ``PgStore`` (which gives ``_cursor`` and ``workspace``)."""

    workspace: str
    _dimensions: set[int]  # vector sizes with an HNSW index
    _iterative: bool  # pgvector >= 0.8: filtered HNSW scans go on until k rows

    def _cursor(self, what: str, *, write: bool = False) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _vector_index(self, cur: Any, size: int) -> None:
        cur.execute(
            f"CREATE INDEX IF NOT EXISTS chunks_embedding_{size:d} ON {SCHEMA}.chunks"
            f" USING hnsw ((embedding::vector({size:d})) vector_cosine_ops)"
            f" WHERE vector_dims(embedding) = {size:d}"
        )

    def _nearest(self, cur: Any, vector: Sequence[float], k: int, columns: str) -> list[Any]:
        """The ``k`` chunks nearest ``vector`` (cosine, HNSW): ``columns`` of ``chunks c``
        and the similarity."""
        size = len(vector)
        literal = vector_literal(vector)
        if self._iterative:
            cur.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        rows: list[Any] = cur.execute(
            f"SELECT {columns}, 1 - (c.embedding::vector({size:d})"
            f" <=> %s::vector({size:d})) FROM {SCHEMA}.chunks c"
            f" WHERE c.workspace = %s AND vector_dims(c.embedding) = {size:d}"
            f" ORDER BY c.embedding::vector({size:d}) <=> %s::vector({size:d}) LIMIT %s",
            (literal, self.workspace, literal, k),
        ).fetchall()
        return rows

    def queue_embeddings(self) -> int:
        """Mark the chunks written without an embedder ``pending``; how many there were."""
        with self._cursor("queueing embeddings failed", write=True) as cur:
            cur.execute(
                f"UPDATE {SCHEMA}.chunks SET embedding_status = 'pending'"
                " WHERE workspace = %s AND embedding_status = 'none'",
                (self.workspace,),
            )
            return int(cur.rowcount)

    def pending_embeddings(self, limit: int) -> list[PendingEmbedding]:
        """Up to ``limit`` chunks waiting for their vector, oldest first."""
        with self._cursor("reading pending embeddings failed") as cur:
            rows = cur.execute(
                f"SELECT id, text_hash, indexed_text FROM {SCHEMA}.chunks WHERE workspace = %s"
                " AND embedding_status = 'pending' ORDER BY id LIMIT %s",
                (self.workspace, limit),
            ).fetchall()
        return [PendingEmbedding(int(row[0]), str(row[1]), str(row[2])) for row in rows]

    def store_embeddings(self, results: Sequence[EmbeddingResult]) -> int:
        """Store vectors (or failures) of chunks that still have that text; how many did."""
        rows = [
            (
                vector_literal(r.vector),
                "ready" if r.vector is not None else "failed",
                r.error,
                self.workspace,
                r.id,
                r.text_hash,
            )
            for r in results
        ]
        sizes = {len(r.vector) for r in results if r.vector is not None}
        with self._cursor("storing embeddings failed", write=True) as cur:
            for size in sizes - self._dimensions:
                self._vector_index(cur, size)
            stored = 0
            for row in rows:
                cur.execute(
                    f"UPDATE {SCHEMA}.chunks SET embedding = %s::vector, embedding_status = %s,"
                    " embedding_error = %s WHERE workspace = %s AND id = %s AND text_hash = %s"
                    " AND embedding_status = 'pending'",
                    row,
                )
                stored += cur.rowcount
        self._dimensions |= sizes
        return stored

    def retry_embeddings(self, keys: Sequence[tuple[int, str]] | None = None) -> int:
        """Make failed chunks pending again (``keys``: those ``(id, text_hash)``; else all)."""
        retry = (
            f"UPDATE {SCHEMA}.chunks SET embedding_status = 'pending'"
            " WHERE workspace = %s AND embedding_status = 'failed'"
        )
        with self._cursor("retrying embeddings failed", write=True) as cur:
            if keys is None:
                cur.execute(retry, (self.workspace,))
                return int(cur.rowcount)
            done = 0
            for row_id, digest in keys:
                cur.execute(
                    retry + " AND id = %s AND text_hash = %s", (self.workspace, row_id, digest)
                )
                done += cur.rowcount
            return done

    def vector_search(self) -> dict[str, object]:
        """Nearest chunks come from pgvector's HNSW index (see ``_vector_index``)."""
        return {"kind": "pgvector"}

    def embedding_counts(self) -> dict[str, int]:
        """Chunks by embedding status (every status present, zero included)."""
        with self._cursor("counting embeddings failed") as cur:
            found = dict(
                cur.execute(
                    f"SELECT embedding_status, count(*) FROM {SCHEMA}.chunks WHERE workspace = %s"
                    " GROUP BY embedding_status",
                    (self.workspace,),
                ).fetchall()
            )
        return {status: int(found.get(status, 0)) for status in EMBEDDING_STATUSES}

    def embedding_failures(self, limit: int) -> list[tuple[str, str]]:
        """``(document, reason)`` of chunks whose embedding failed."""
        with self._cursor("reading embedding failures failed") as cur:
            rows = cur.execute(
                f"SELECT document, embedding_error FROM {SCHEMA}.chunks WHERE workspace = %s"
                " AND embedding_status = 'failed' ORDER BY id LIMIT %s",
                (self.workspace, limit),
            ).fetchall()
        return [(str(path), str(reason)) for path, reason in rows]


def carried(old: dict[str, str], rows: list[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """``rows`` (status at index 12, vector at 13, text hash at 14) with each pending chunk
    whose text had a vector given it back."""
    for row in rows:
        if row[12] == "pending" and row[14] in old:
            yield (*row[:12], "ready", old[row[14]], *row[14:])
        else:
            yield row
