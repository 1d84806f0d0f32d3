"""The writes of ``PgStore``: documents' records and chunks, a batch of documents in one
transaction, with their words (``pg_postings.write_words``: each chunk's word numbers and
each word's chunk count) and their vectors (an unchanged text keeps its vector).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from actions.index.embeddings import text_hash
from actions.index.model import Chunk, DocumentRecord
from actions.index.pg_embeddings import PgEmbeddings, carried, vector_literal
from actions.index.pg_postings import DELETE_ROWS, columns_of, write_words
from actions.index.pg_schema import SCHEMA


class PgWrites(PgEmbeddings):
    """Mixed into ``PgStore`` (which gives ``_cursor``, ``workspace`` and the workspace's
    number, ``_workspace_id``)."""

    _workspace_id: int  # the workspace's number in ``words`` and ``chunk_words``
    _writes: int  # document writes since the query statistics were read

    def put_document(self, record: DocumentRecord) -> None:
        self.put_documents([record])

    def put_documents(self, records: Sequence[DocumentRecord]) -> None:
        with self._cursor("storing documents failed", write=True) as cur:
            self._upsert(cur, records)

    def replace_chunks(self, record: DocumentRecord, chunks: Sequence[Chunk]) -> None:
        self.replace_many([(record, chunks)])

    def replace_many(self, documents: Sequence[tuple[DocumentRecord, Sequence[Chunk]]]) -> None:
        """A transaction per batch (a path at most once in each): the chunk counts of the
        batch's words are updated once, not once per document."""
        batches: list[list[tuple[DocumentRecord, Sequence[Chunk]]]] = [[]]
        for record, chunks in documents:
            if any(record.path == other.path for other, _ in batches[-1]):
                batches.append([])
            batches[-1].append((record, chunks))
        for batch in batches:
            if batch:
                self._replace(batch)

    def _replace(self, documents: list[tuple[DocumentRecord, Sequence[Chunk]]]) -> None:
        columns = [  # pure work, before the transaction
            [columns_of(c.indexed_text, c.content, c.summary) for c in chunks]
            for _, chunks in documents
        ]
        sizes = {len(c.embedding) for _, chunks in documents for c in chunks if c.embedding}
        paths = [record.path for record, _ in documents]
        what = paths[0] if len(paths) == 1 else f"{len(paths)} documents ({paths[0]}, ...)"
        with self._cursor(f"storing the chunks of {what} failed", write=True) as cur:
            self._writes += len(documents) - 1
            for size in sizes - self._dimensions:
                self._vector_index(cur, size)
            written: list[tuple[int, tuple[list[str], ...]]] = []
            removed: list[list[int]] = []
            for (record, chunks), words in zip(documents, columns, strict=True):
                ids, gone = self._replace_document(cur, record, chunks, words)
                written += zip(ids, words, strict=True)
                removed += gone
            write_words(cur, self._workspace_id, written, removed)
            self._upsert(cur, [record for record, _ in documents])
        self._dimensions |= sizes

    def _replace_document(
        self,
        cur: Any,
        record: DocumentRecord,
        chunks: Sequence[Chunk],
        columns: list[tuple[list[str], ...]],
    ) -> tuple[list[int], list[list[int]]]:
        """The document's chunks replaced: their new ids and the word numbers of the old."""
        rows = [self._row(chunk, words) for chunk, words in zip(chunks, columns, strict=True)]
        old = dict(  # vectors of the old chunks: unchanged text keeps its vector
            cur.execute(
                f"SELECT text_hash, embedding::text FROM {SCHEMA}.chunks WHERE workspace = %s"
                " AND document = %s AND embedding_status = 'ready'",
                (self.workspace, record.path),
            ).fetchall()
        )
        removed = [row[0] for row in cur.execute(DELETE_ROWS, (self.workspace, record.path))]
        cur.execute(
            f"DELETE FROM {SCHEMA}.chunks WHERE workspace = %s AND document = %s",
            (self.workspace, record.path),
        )
        ids = [  # the chunks' ids first: their words' rows name them
            int(row[0])
            for row in cur.execute(
                f"SELECT nextval('{SCHEMA}.chunks_id_seq') FROM generate_series(1, %s)",
                (len(rows),),
            )
        ]
        cur.executemany(
            f"INSERT INTO {SCHEMA}.chunks (workspace, document, position, type, content,"
            " indexed_text, summary, is_atomic, headings, start_line, end_line, language,"
            " embedding_status, embedding, text_hash, start_page, end_page, length, id)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::vector, %s, %s,"
            " %s, %s, %s)",
            [(*row, row_id) for row, row_id in zip(carried(old, rows), ids, strict=True)],
        )
        return ids, removed

    def _row(self, chunk: Chunk, columns: tuple[list[str], ...]) -> tuple[object, ...]:
        return (
            self.workspace,
            chunk.document,
            chunk.position,
            chunk.type,
            chunk.content,
            chunk.indexed_text,
            chunk.summary,
            chunk.is_atomic,
            json.dumps(list(chunk.headings), ensure_ascii=False),
            chunk.start_line,
            chunk.end_line,
            chunk.language,
            chunk.embedding_status,
            vector_literal(chunk.embedding),
            text_hash(chunk.indexed_text),
            chunk.start_page,
            chunk.end_page,
            sum(len(column) for column in columns),
        )

    def _upsert(self, cur: Any, records: Sequence[DocumentRecord]) -> None:
        cur.executemany(
            f"INSERT INTO {SCHEMA}.documents (workspace, path, status, content_hash, size,"
            " mtime_ns, reason, chunks) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (workspace, path) DO UPDATE SET status = excluded.status,"
            " content_hash = excluded.content_hash, size = excluded.size,"
            " mtime_ns = excluded.mtime_ns, reason = excluded.reason, chunks = excluded.chunks",
            [
                (
                    self.workspace,
                    r.path,
                    r.status,
                    r.content_hash,
                    r.size,
                    r.mtime_ns,
                    r.reason,
                    r.chunks,
                )
                for r in records
            ],
        )

    def remove_document(self, path: str) -> None:
        with self._cursor(f"removing {path} failed", write=True) as cur:
            removed = [row[0] for row in cur.execute(DELETE_ROWS, (self.workspace, path))]
            write_words(cur, self._workspace_id, [], removed)
            for table, column in (("chunks", "document"), ("documents", "path")):
                cur.execute(
                    f"DELETE FROM {SCHEMA}.{table} WHERE workspace = %s AND {column} = %s",
                    (self.workspace, path),
                )
