"""The embedded index: one SQLite file, chunks searched with FTS5's BM25.

Three FTS columns: ``head`` (the file path and heading path, x1: as much as the text, as in
plain BM25 — x2 ranked every chunk of a file whose name shares a word with the question above
the passage that answers it), ``small`` (the summary of a table / long code block, or the text
of prose and short code, x1) and ``body`` (the original table or long code, x0.5: an exact
cell value still finds its table, but the summary ranks it). Text is indexed as lower-cased
words each followed by its stem (``terms``: ``_`` and punctuation separate words), handed
to FTS5's ``ascii`` tokenizer already split, so the index holds exactly the words a query is
reduced to.
Queries are reduced to the same words, stop words dropped, every other word kept and scored:
BM25 ranks chunks matching more, rarer words first (``terms.plan_query``). When the query's
words are together in more than ``MATCH_BUDGET`` chunks, the chunks ranked are those holding
one of its rarest words, still scored by every word (two FTS5 queries: the chunks holding a
rare and a common word, then those holding only rare ones); a query of only very common words
ranks the first ``CAPPED_ROWS`` matching chunks (bounded time; such a query has no good answer
anyway).

One connection per store, guarded by a lock (callers come from worker threads); WAL mode so
another process (``agent-ls index`` beside a running server) can read and write too.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from actions.index.embeddings import MIN_SIMILARITY, distinct, hybrid, text_hash
from actions.index.model import (
    STATUSES,
    Chunk,
    DocumentRecord,
    Hit,
    StoreError,
)
from actions.index.sqlite_ann import DELTA_MAX, RETRY_AFTER, VectorIndex
from actions.index.sqlite_ann import DROP as VECTOR_DROP
from actions.index.sqlite_ann import SCHEMA as VECTOR_SCHEMA
from actions.index.sqlite_vectors import SqliteEmbeddings, pack
from actions.index.stop_words import STOP_DEPTH, Candidate, Corpus, rescored, stop_terms
from actions.index.terms import (
    CAPPED_ROWS,
    COLUMN_WEIGHTS,
    EXACT_STATS_BELOW,
    FUSION_DEPTH,
    QueryPlan,
    plan_query,
    query_terms,
    terms,
)
from actions.private import private_sqlite

SCHEMA_VERSION = 7  # 7: markdown front matter no heading (markdown documents re-read)
# 6: each word and its stem (terms.TERMS_VERSION 2; FTS refilled)
# 5: source cut by syntax, identifiers indexed whole (rebuilt from files)
# 4: the FTS words of ``terms`` as they are (ascii tokenizer)
REFILLED = (3, 5)  # versions whose FTS words differ (cut, then stemmed, otherwise): refilled
RECHUNKED = (3, 5, 6)  # versions whose markdown chunks differ: their documents read again
_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    path TEXT PRIMARY KEY, status TEXT NOT NULL, content_hash TEXT NOT NULL DEFAULT '',
    size INTEGER NOT NULL DEFAULT 0, mtime_ns INTEGER NOT NULL DEFAULT 0,
    reason TEXT NOT NULL DEFAULT '', chunks INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY, document TEXT NOT NULL, position INTEGER NOT NULL,
    type TEXT NOT NULL, content TEXT NOT NULL, indexed_text TEXT NOT NULL,
    summary TEXT NOT NULL, is_atomic INTEGER NOT NULL, headings TEXT NOT NULL,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, language TEXT NOT NULL,
    embedding_status TEXT NOT NULL, embedding BLOB,
    text_hash TEXT NOT NULL DEFAULT '', embedding_error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS chunks_document ON chunks(document, position);
CREATE INDEX IF NOT EXISTS chunks_pending ON chunks(id) WHERE embedding_status = 'pending';
"""
_FTS = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts"
    " USING fts5(head, small, body, tokenize = 'ascii')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vocab USING fts5vocab(chunks_fts, 'row')",
)
BATCH_SECONDS = 0.5  # in a batch (a full build), commit at least this often
STATS_TTL = 500  # document frequencies are re-read after this many document writes


def fts_query(words: list[str]) -> str:
    return " OR ".join(f'"{word}"' for word in words)


def fts_columns(chunk: Chunk) -> tuple[str, str, str]:
    """``(head, small, body)`` of a chunk; ``indexed_text`` is ``path\nheadings\nsmall``."""
    return _fts_columns(chunk.indexed_text, chunk.content, chunk.summary)


def _fts_columns(indexed_text: str, content: str, summary: str) -> tuple[str, str, str]:
    path, _, rest = indexed_text.partition("\n")
    headings, _, small = rest.partition("\n")
    body = content if summary else ""
    return _head(f"{path} {headings}"), " ".join(terms(small)), " ".join(terms(body))


def fts_average(db: sqlite3.Connection) -> float:
    """FTS5's mean row length in words (its ``bm25()``'s avgdl): the index's averages record
    (fts5_index.c, row 1 of its data table): the row count, then each column's word count,
    SQLite varints."""
    found = db.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
    values, block, at = [], bytes(found[0]) if found else b"", 0
    while at < len(block):
        value, at = _varint(block, at)
        values.append(value)
    return sum(values[1:]) / values[0] if values and values[0] else 1.0


def _varint(block: bytes, at: int) -> tuple[int, int]:
    value = 0
    for index in range(8):
        byte = block[at + index]
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, at + index + 1
    return (value << 8) | block[at + 8], at + 9


@functools.lru_cache(maxsize=4096)
def _head(text: str) -> str:
    """The ``head`` column: a document's chunks share its path and often their headings."""
    return " ".join(terms(text))


class SqliteStore(SqliteEmbeddings):
    """``Store`` on one SQLite file (created with its folder on first use)."""

    backend = "sqlite"

    def __init__(
        self,
        path: Path,
        *,
        ann_min: int | None = None,
        delta_max: int = DELTA_MAX,
        graph_retry: float = RETRY_AFTER,
        own_folder: bool = True,
    ) -> None:
        """``own_folder``: the folder is agent-ls's (made private); False: the user named
        the file (``sqlite:`` URL), only the files are made private."""
        self.path = path
        try:
            private_sqlite(path, own_folder=own_folder)
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=10000")
            self._migrate()
        except sqlite3.Error as error:
            raise StoreError(f"the index at {path} cannot be opened: {error}") from None
        except OSError as error:
            raise StoreError(f"the index folder {path.parent} cannot be created: {error}") from None
        self._lock = threading.Lock()
        self._frequencies: dict[str, int] = {}  # document frequency of query words, cached
        self._total: int | None = None
        self._average = 1.0  # mean chunk length in words (BM25's avgdl), read with _total
        self._writes = 0
        self._vectors = VectorIndex(path, self._lock, ann_min, delta_max, graph_retry)
        self._batching = False
        self._batch_started = 0.0

    @property
    def location(self) -> str:
        return str(self.path)

    def _migrate(self) -> None:
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        if version in RECHUNKED:  # markdown cut otherwise: read again at the next update
            from actions.index.chunking import markdown_paths  # once: not at every open

            paths = [str(path) for (path,) in self._db.execute("SELECT path FROM documents")]
            self._db.executemany(
                "UPDATE documents SET mtime_ns = 0, content_hash = '' WHERE path = ?",
                [(path,) for path in markdown_paths(paths)],
            )
        if version in REFILLED:  # other words, same chunks: the FTS table again from them
            self._refill_fts()
        elif version not in (0, *RECHUNKED, SCHEMA_VERSION):  # older: rebuild from the files
            for table in ("chunks_vocab", "chunks_fts", "chunks", "documents"):
                self._db.execute(f"DROP TABLE IF EXISTS {table}")
            self._db.executescript(VECTOR_DROP)
        self._db.executescript(_SCHEMA)
        for statement in _FTS:
            self._db.execute(statement)
        self._db.executescript(VECTOR_SCHEMA)
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(chunks)")}
        for page in ("start_page", "end_page"):  # added after version 2 (PDF pages)
            if page not in columns:
                self._db.execute(f"ALTER TABLE chunks ADD COLUMN {page} INTEGER NOT NULL DEFAULT 0")
        self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def _refill_fts(self) -> None:
        """A version 3 or 5 index: its FTS rows again from the chunks table, in one
        transaction (no file is read again and every vector is kept)."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("PRAGMA user_version").fetchone()[0] in REFILLED:  # not done meanwhile
                db.execute("DROP TABLE IF EXISTS chunks_vocab")
                db.execute("DROP TABLE IF EXISTS chunks_fts")
                for statement in _FTS:
                    db.execute(statement)
                rows = db.execute("SELECT id, indexed_text, content, summary FROM chunks")
                db.executemany(
                    "INSERT INTO chunks_fts (rowid, head, small, body) VALUES (?,?,?,?)",
                    ((row[0], *_fts_columns(*row[1:])) for row in rows),
                )
                db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._writes += 1
            if self._total is not None and self._total < EXACT_STATS_BELOW:
                self._writes = STATS_TTL  # a small index: exact statistics are cheap
            if self._batching:  # one savepoint per write inside the batch's transaction
                if not self._db.in_transaction:
                    self._db.execute("BEGIN IMMEDIATE")
                    self._batch_started = time.monotonic()
                self._db.execute("SAVEPOINT write")
                try:
                    yield self._db
                except BaseException:
                    self._db.execute("ROLLBACK TO write")
                    self._db.execute("RELEASE write")
                    raise
                self._db.execute("RELEASE write")
                if time.monotonic() - self._batch_started >= BATCH_SECONDS:
                    self._db.execute("COMMIT")  # other readers see progress this often
                return
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group the writes made inside into few transactions (committed every
        ``BATCH_SECONDS`` and at the end): FTS5 writes one index segment per transaction, so
        a full build committing each document on its own spends most of its time merging."""
        with self._lock:
            self._batching = True
        try:
            yield
        finally:
            with self._lock:
                self._batching = False
                if self._db.in_transaction:
                    self._db.execute("COMMIT")

    def documents(self) -> dict[str, DocumentRecord]:
        with self._lock:
            rows = self._db.execute(
                "SELECT path, status, content_hash, size, mtime_ns, reason, chunks FROM documents"
            ).fetchall()
        return {row[0]: DocumentRecord(*row) for row in rows}

    def put_document(self, record: DocumentRecord) -> None:
        with self._transaction() as db:
            _upsert(db, record)

    def put_documents(self, records: Sequence[DocumentRecord]) -> None:
        with self._transaction() as db:
            _upsert_many(db, records)

    def replace_chunks(self, record: DocumentRecord, chunks: Sequence[Chunk]) -> None:
        self.replace_many([(record, chunks)])

    def replace_many(self, documents: Sequence[tuple[DocumentRecord, Sequence[Chunk]]]) -> None:
        """``replace_chunks`` for many documents in one savepoint: one statement per table
        (FTS5 flushes its pending terms at every savepoint release, and per-document
        statements cost more than the rows)."""
        columns = [fts_columns(chunk) for _, chunks in documents for chunk in chunks]
        hashes = [text_hash(chunk.indexed_text) for _, chunks in documents for chunk in chunks]
        paths = [record.path for record, _ in documents]
        with self._transaction() as db:
            present = _present(db, paths)
            # vectors of the old chunks: unchanged text keeps its vector (per document)
            old: dict[str, dict[str, bytes]] = {}
            for _, path, digest, blob, status in present:
                if status == "ready":
                    old.setdefault(path, {})[digest] = blob
            if present:  # a new document (a full build: most) has nothing to delete
                db.executemany("DELETE FROM chunks_fts WHERE rowid = ?", [(r[0],) for r in present])
                gone = sorted({row[1] for row in present})
                db.executemany("DELETE FROM chunks WHERE document = ?", [(path,) for path in gone])
            (last,) = db.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()
            owned = [(chunk, record.path) for record, chunks in documents for chunk in chunks]
            ids = range(last + 1, last + 1 + len(owned))
            rows = [
                _row(row_id, chunk, digest, old.get(path, {}))
                for row_id, (chunk, path), digest in zip(ids, owned, hashes, strict=True)
            ]
            db.executemany(_INSERT_CHUNK, rows)
            db.executemany(
                "INSERT INTO chunks_fts (rowid, head, small, body) VALUES (?,?,?,?)",
                [(row_id, *fts) for row_id, fts in zip(ids, columns, strict=True)],
            )
            _upsert_many(db, [record for record, _ in documents])

    def remove_document(self, path: str) -> None:
        with self._transaction() as db:
            _delete_chunks(db, path)
            db.execute("DELETE FROM documents WHERE path = ?", (path,))

    def chunks_of(self, path: str) -> list[Chunk]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE document = ? ORDER BY position",
                (path,),
            ).fetchall()
        return [_chunk(row) for row in rows]

    def _plan(self, words: list[str]) -> QueryPlan:
        """How ``words`` are ranked, from their chunk frequencies."""
        with self._lock:
            self._count(words)
            return plan_query(words, self._frequencies)

    def _count(self, words: list[str]) -> None:
        """Read the chunk frequencies of ``words`` (cached; a word found in no chunk is
        looked up again each time: it may have been written since). Under the lock."""
        if self._writes >= STATS_TTL or self._total is None:
            self._frequencies.clear()
            (self._total,) = self._db.execute("SELECT count(*) FROM chunks").fetchone()
            self._average = fts_average(self._db)
            self._writes = 0
        for word in words:
            if not self._frequencies.get(word):
                row = self._db.execute(
                    "SELECT doc FROM chunks_vocab WHERE term = ?", (word,)
                ).fetchone()
                self._frequencies[word] = int(row[0]) if row else 0

    def _with_stop_words(
        self, lexical: list[tuple[int, float]], stops: list[str], rows: dict[int, _Row]
    ) -> list[tuple[int, float]]:
        """``lexical``'s ``(row id, score)`` re-ranked with the query's stop words at a small
        weight (``stop_words.rescored``); ``rows`` gets the first ``STOP_DEPTH`` chunk rows,
        read with their FTS columns in one query."""
        with self._lock:
            self._count(stops)
            corpus = Corpus(self._total or 0, self._average, dict(self._frequencies))
        first = self._rows([key for key, _ in lexical[:STOP_DEPTH]], columns=True)
        rows.update((key, row[:-3]) for key, row in first.items())
        candidates = [
            Candidate(key, score, tuple(map(str, first[key][-3:])) if key in first else ())
            for key, score in lexical
        ]
        return rescored(candidates, stops, corpus)

    def search(self, query: str, k: int, *, vector: Sequence[float] | None = None) -> list[Hit]:
        """BM25 alone, or (``vector`` given) BM25 and cosine: ``embeddings.hybrid``."""
        plan = self._plan(query_terms(query))
        if k <= 0 or (not plan.scored and vector is None):
            return []
        depth = max(k, FUSION_DEPTH)  # copies of a passage count once: ranked beyond k
        lexical = self._lexical(plan, depth) if plan.scored else []
        rows: dict[int, _Row] = {}
        stops = stop_terms(query)
        if stops and lexical:
            lexical = self._with_stop_words(lexical, stops, rows)
        if vector is None:
            return self._distinct(lexical, k, rows)
        with self._lock:
            try:
                nearest = self._vectors.nearest(self._db, vector, depth, MIN_SIMILARITY)
            except sqlite3.Error as error:
                raise StoreError(f"search failed: {error}") from None
        # every candidate's text tells a copied passage: read the rows not read yet
        wanted = [key for key, _ in (*lexical, *nearest) if key not in rows]
        rows.update(self._rows(list(dict.fromkeys(wanted))))
        ranked = [(key, score) for key, score in nearest if key in rows]  # deleted since: gone
        scored = [(key, score) for key, score in lexical if key in rows]
        fused = hybrid(scored, ranked, k, passage=lambda key: rows[key][_CONTENT])
        return [Hit(_chunk(rows[key]), score) for key, score in fused]

    def _distinct(
        self, lexical: list[tuple[int, float]], k: int, rows: dict[int, _Row]
    ) -> list[Hit]:
        """BM25's ``k`` best with copies of a passage once (``embeddings.distinct``), reading
        the chunk rows of the first ``k`` candidates, and of the others only when copies
        among them leave fewer than ``k`` passages."""
        for read in (k, len(lexical)):
            wanted = [key for key, _ in lexical[:read] if key not in rows]
            rows.update(self._rows(wanted))
            found = [(rows[key], score) for key, score in lexical[:read] if key in rows]
            best = distinct(found, k, passage=lambda row: row[_CONTENT])
            if len(best) >= k or read >= len(lexical):
                break
        return [Hit(_chunk(row), score) for row, score in best]

    def _rows(self, keys: list[int], *, columns: bool = False) -> dict[int, _Row]:
        """The chunk rows of ``keys`` by row id (a chunk deleted since is missing); with
        ``columns``, each followed by its head, small and body FTS columns."""
        if not keys:
            return {}
        extra = ", fts.c0, fts.c1, fts.c2" if columns else ""
        join = " JOIN chunks_fts_content AS fts ON fts.id = chunks.id" if columns else ""
        sql = (
            f"SELECT chunks.id, {_CHUNK_COLUMNS}{extra} FROM chunks{join}"
            f" WHERE chunks.id IN ({','.join('?' * len(keys))})"
        )
        with self._lock:
            try:
                found = self._db.execute(sql, keys).fetchall()
            except sqlite3.OperationalError as error:
                raise StoreError(f"search failed: {error}") from None
        return {int(row[0]): row[1:] for row in found}

    def _lexical(self, plan: QueryPlan, k: int) -> list[tuple[int, float]]:
        """The ``k`` best chunks by BM25 over every word of ``plan`` among the chunks holding
        one of ``plan.matched``: ``(row id, score)``, score higher better."""
        rare = fts_query(list(plan.matched))
        window, arguments = "", []
        if plan.capped:  # only very common words: rank the first CAPPED_ROWS matches
            window = (
                " AND rowid <= (SELECT max(rowid) FROM (SELECT rowid FROM chunks_fts"
                f" WHERE chunks_fts MATCH ? LIMIT {CAPPED_ROWS}))"
            )
            arguments.append(rare)
        # FTS5's bm25() scores the phrases of the MATCH expression, each once: "(rare) AND
        # (common)" scores a chunk holding both by every word, "rare" alone scores exactly
        # the chunks holding no common word; a chunk's best-known score is the first.
        # A word in half the chunks or more weighs nothing to FTS5 (its idf is floored at
        # 1e-6) but costs the most to read: it is left out of the scoring query.
        half = (self._total or 0) / 2
        others = [word for word in plan.others if self._frequencies.get(word, 0) < half]
        matches = [f"({rare}) AND ({fts_query(others)})"] if others else []
        found: dict[int, float] = {}
        for match in (*matches, rare):
            for key, rank in self._ranked(match, window, arguments, k):
                found.setdefault(key, rank)
        best = sorted(found.items(), key=lambda item: item[1])[:k]
        return [(key, -rank) for key, rank in best]

    def _ranked(
        self, match: str, window: str, arguments: list[str], k: int
    ) -> list[tuple[int, float]]:
        """``(row id, FTS5 rank)`` of the ``k`` best matches of ``match``, in the FTS index
        alone (the chunk rows are read for the winners only: ``_rows``)."""
        weights = ", ".join(str(weight) for weight in COLUMN_WEIGHTS)
        sql = (
            f"SELECT rowid, bm25(chunks_fts, {weights}) AS rank FROM chunks_fts "
            f"WHERE chunks_fts MATCH ?{window} ORDER BY rank LIMIT ?"
        )
        with self._lock:
            try:
                rows: list[tuple[int, float]] = self._db.execute(
                    sql, (match, *arguments, k)
                ).fetchall()
            except sqlite3.OperationalError as error:
                raise StoreError(f"search failed: {error}") from None
        return rows

    def counts(self) -> dict[str, int]:
        with self._lock:
            rows = self._db.execute(
                "SELECT status, count(*) FROM documents GROUP BY status"
            ).fetchall()
        found = dict(rows)
        return {status: int(found.get(status, 0)) for status in STATUSES}

    def chunk_count(self) -> int:
        with self._lock:
            (count,) = self._db.execute("SELECT count(*) FROM chunks").fetchone()
        return int(count)

    def close(self) -> None:
        self._vectors.close()  # outside the lock: a finishing build takes it
        with self._lock:
            self._db.close()


_CHUNK_COLUMNS = (
    "chunks.document, chunks.position, chunks.type, chunks.content, chunks.indexed_text, "
    "chunks.summary, chunks.is_atomic, chunks.headings, chunks.start_line, chunks.end_line, "
    "chunks.language, chunks.embedding_status, chunks.start_page, chunks.end_page"
)


_CONTENT = 3  # the position of chunks.content in _CHUNK_COLUMNS
_Row = tuple[object, ...]  # a chunk row: _CHUNK_COLUMNS


def _chunk(row: Sequence[object]) -> Chunk:
    (
        document,
        position,
        kind,
        content,
        indexed,
        summary,
        atomic,
        headings,
        start,
        end,
        language,
        embedding_status,
        start_page,
        end_page,
    ) = row
    return Chunk(
        document=str(document),
        position=int(str(position)),
        type=kind,  # type: ignore[arg-type]
        content=str(content),
        indexed_text=str(indexed),
        summary=str(summary),
        is_atomic=bool(atomic),
        headings=tuple(json.loads(str(headings))),
        start_line=int(str(start)),
        end_line=int(str(end)),
        language=str(language),
        start_page=int(str(start_page)),
        end_page=int(str(end_page)),
        embedding_status=embedding_status,  # type: ignore[arg-type]
    )


_UPSERT = (
    "INSERT INTO documents (path, status, content_hash, size, mtime_ns, reason, chunks) "
    "VALUES (?,?,?,?,?,?,?) ON CONFLICT(path) DO UPDATE SET status=excluded.status, "
    "content_hash=excluded.content_hash, size=excluded.size, mtime_ns=excluded.mtime_ns, "
    "reason=excluded.reason, chunks=excluded.chunks"
)


def _upsert(db: sqlite3.Connection, record: DocumentRecord) -> None:
    _upsert_many(db, [record])


def _upsert_many(db: sqlite3.Connection, records: Sequence[DocumentRecord]) -> None:
    db.executemany(
        _UPSERT,
        [
            (r.path, r.status, r.content_hash, r.size, r.mtime_ns, r.reason, r.chunks)
            for r in records
        ],
    )


# json.dumps(..., ensure_ascii=False) builds an encoder at every call: one, kept
_HEADINGS_JSON = json.JSONEncoder(ensure_ascii=False).encode
_INSERT_CHUNK = (
    "INSERT INTO chunks (id, document, position, type, content, indexed_text, summary, "
    "is_atomic, headings, start_line, end_line, language, embedding_status, embedding, "
    "text_hash, start_page, end_page) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


def _present(
    db: sqlite3.Connection, paths: Sequence[str]
) -> list[tuple[int, str, str, bytes, str]]:
    """``(id, document, text_hash, embedding, embedding_status)`` of the chunks of ``paths``."""
    found: list[tuple[int, str, str, bytes, str]] = []
    for start in range(0, len(paths), 500):  # well below SQLite's limit of bound variables
        part = paths[start : start + 500]
        found += db.execute(
            "SELECT id, document, text_hash, embedding, embedding_status FROM chunks"
            f" WHERE document IN ({','.join('?' * len(part))})",
            part,
        ).fetchall()
    return found


def _delete_chunks(db: sqlite3.Connection, path: str) -> None:
    db.execute(
        "DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE document = ?)",
        (path,),
    )
    db.execute("DELETE FROM chunks WHERE document = ?", (path,))


def _row(row_id: int, chunk: Chunk, digest: str, old: dict[str, bytes]) -> tuple[object, ...]:
    """The chunks row of ``chunk``; a pending chunk whose text had a vector gets it back."""
    status, blob = chunk.embedding_status, pack(chunk.embedding)
    if status == "pending" and digest in old:
        status, blob = "ready", old[digest]
    return (
        row_id,
        chunk.document,
        chunk.position,
        chunk.type,
        chunk.content,
        chunk.indexed_text,
        chunk.summary,
        int(chunk.is_atomic),
        _HEADINGS_JSON(list(chunk.headings)),
        chunk.start_line,
        chunk.end_line,
        chunk.language,
        status,
        blob,
        digest,
        chunk.start_page,
        chunk.end_page,
    )
