"""The team index: the same store on PostgreSQL + pgvector (``indexUrl = postgresql://...``).

One database can hold the indexes of many workspaces: every row carries its workspace key
(the hash ``workspace_key`` gives), so a team shares one server. The tables live in their own
schema (``agent_ls``), created on first use together with ``CREATE EXTENSION vector``.

Lexical ranking is the SQLite store's: the text is reduced to the same words by ``terms()``
(so stemming is identical; ``_`` also separates words) and kept per chunk as sorted word
numbers with their column-weighted frequencies (pg_postings.py: ``head`` and ``small`` x1,
``body`` x0.5, and the chunk's length), under a GIN index; each word's chunk count is kept in
``words`` by the writes. A query takes the chunks holding one of the words
``terms.plan_query`` matches with from the GIN index, finds each scored word's frequency in
their rows by binary search, and sums BM25 as FTS5 does (k1 1.2, b 0.75), every content word
of the query scored. Former layouts: a weighted ``tsvector`` under GIN (each candidate's whole
``tsvector`` unnested per query: p50 71.6 ms at 20k chunks), then a row per posting under a
covering B-tree (fast, but 30x the space): docs/retrieval.md.
``ts_rank_cd`` (cover density, no document frequencies) was measured instead and ranks
worse: hit@5 0.74 against 0.90 on bench/retrieval_pg.py's questions.

Dense vectors go in a ``vector`` column (any dimension; an HNSW index per dimension in use is
created on first write or first stored embedding). ``search(..., vector=...)`` fuses the
lexical ranking and the nearest neighbours (HNSW, cosine): ``embeddings.hybrid``; the
embedding lifecycle (pending -> ready / failed, vectors kept by text hash) is in
pg_embeddings.py.

The password of the URL never appears in ``location`` nor in an error message.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from actions.index.embeddings import MIN_SIMILARITY, distinct, hybrid, text_hash
from actions.index.model import STATUSES, Chunk, DocumentRecord, Hit, StoreError
from actions.index.pg_embeddings import PgEmbeddings, carried, vector_literal
from actions.index.pg_postings import (
    DELETE_ROWS,
    POSTINGS_DDL,
    POSTINGS_INDEXES,
    columns_of,
    retokenize,
    workspace_number,
    write_words,
)
from actions.index.stop_words import STOP_DEPTH, Candidate, Corpus, rescored, stop_terms
from actions.index.terms import (
    BM25_B,
    BM25_K1,
    CAPPED_ROWS,
    EXACT_STATS_BELOW,
    FUSION_DEPTH,
    QueryPlan,
    bm25_idf,
    plan_query,
    query_terms,
)

SCHEMA = "agent_ls"
SCHEMA_VERSION = "1"
CONNECT_TIMEOUT = 10
STATS_TTL = 500  # document frequencies are re-read after this many document writes

_DDL = f"""
CREATE EXTENSION IF NOT EXISTS vector;
CREATE SCHEMA IF NOT EXISTS {SCHEMA};
CREATE TABLE IF NOT EXISTS {SCHEMA}.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS {SCHEMA}.documents (
    workspace TEXT NOT NULL, path TEXT NOT NULL, status TEXT NOT NULL,
    content_hash TEXT NOT NULL DEFAULT '', size BIGINT NOT NULL DEFAULT 0,
    mtime_ns BIGINT NOT NULL DEFAULT 0, reason TEXT NOT NULL DEFAULT '',
    chunks INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (workspace, path)
);
CREATE TABLE IF NOT EXISTS {SCHEMA}.chunks (
    id BIGSERIAL PRIMARY KEY, workspace TEXT NOT NULL, document TEXT NOT NULL,
    position INTEGER NOT NULL, type TEXT NOT NULL, content TEXT NOT NULL,
    indexed_text TEXT NOT NULL, summary TEXT NOT NULL, is_atomic BOOLEAN NOT NULL,
    headings JSONB NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
    language TEXT NOT NULL, embedding_status TEXT NOT NULL, embedding vector,
    length INTEGER NOT NULL DEFAULT 0
);
ALTER TABLE {SCHEMA}.chunks ADD COLUMN IF NOT EXISTS text_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE {SCHEMA}.chunks ADD COLUMN IF NOT EXISTS embedding_error TEXT NOT NULL DEFAULT '';
ALTER TABLE {SCHEMA}.chunks ADD COLUMN IF NOT EXISTS start_page INTEGER NOT NULL DEFAULT 0;
ALTER TABLE {SCHEMA}.chunks ADD COLUMN IF NOT EXISTS end_page INTEGER NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS chunks_document ON {SCHEMA}.chunks (workspace, document, position);
CREATE INDEX IF NOT EXISTS chunks_pending ON {SCHEMA}.chunks (workspace, id)
    WHERE embedding_status = 'pending';
{POSTINGS_DDL}
{POSTINGS_INDEXES}
INSERT INTO {SCHEMA}.meta VALUES ('schema_version', '{SCHEMA_VERSION}') ON CONFLICT DO NOTHING;
"""
_CHUNK_COLUMNS = (
    "c.document, c.position, c.type, c.content, c.indexed_text, c.summary, c.is_atomic, "
    "c.headings, c.start_line, c.end_line, c.language, c.embedding_status, c.start_page,"
    " c.end_page"
)


def public_location(url: str) -> str:
    """``url`` without its password (in the authority or a ``password=`` parameter)."""
    parts = urlsplit(url)
    user = f"{parts.username}@" if parts.username else ""
    host = parts.netloc.rpartition("@")[2]
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k != "password"], safe="/")
    return f"{parts.scheme}://{user}{host}{parts.path}" + (f"?{query}" if query else "")


def _secrets(url: str) -> list[str]:
    parts = urlsplit(url)
    found = [v for k, v in parse_qsl(parts.query) if k == "password" and v]
    if parts.password:
        found += [parts.password, unquote(parts.password)]  # as written and as decoded
    return sorted(set(found), key=len, reverse=True)


class PgStore(PgEmbeddings):
    """``Store`` of one workspace (``workspace``: its key) in a PostgreSQL database."""

    backend = "postgresql"

    def __init__(self, url: str, workspace: str) -> None:
        self._url = url
        self._secrets = _secrets(url)
        self.workspace = workspace
        self._location = public_location(url)
        self._lock = threading.Lock()
        self._frequencies: dict[str, int] = {}
        self._numbers: dict[str, int] = {}  # each word's number in ``words``
        self._total: int | None = None
        self._average = 1.0  # mean chunk length in words (BM25's avgdl)
        self._writes = 0
        self._dimensions: set[int] = set()  # vector sizes with an HNSW index
        self._iterative = False  # pgvector >= 0.8: filtered HNSW scans go on until k rows
        self._workspace_id = 0  # the workspace's number in ``words`` and ``chunk_words``
        self._conn = self._connect()

    @property
    def location(self) -> str:
        return f"{self._location} (workspace {self.workspace})"

    def _error(self, what: str, error: Exception) -> StoreError:
        message = " ".join(str(error).split()) or type(error).__name__
        for secret in self._secrets:
            message = message.replace(secret, "***")
        return StoreError(f"{what} ({self._location}): {message}")

    def _connect(self) -> Any:
        try:
            import psycopg
        except ImportError:
            raise StoreError(
                "a PostgreSQL index needs psycopg: pip install 'agent-ls[postgres]'"
            ) from None
        try:
            conn = psycopg.connect(self._url, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
        except (psycopg.Error, ValueError) as error:
            raise self._error("the PostgreSQL index cannot be reached", error) from None
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(hashtext('agent_ls schema'))")
                conn.execute(_DDL)
                retokenize(conn)
                _rechunk_markdown(conn)
                self._workspace_id = workspace_number(conn, self.workspace)
                row = conn.execute(
                    "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                ).fetchone()
                self._iterative = _version(str(row[0]) if row else "") >= (0, 8)
                self._dimensions = {
                    int(row[0].rsplit("_", 1)[1])
                    for row in conn.execute(
                        "SELECT indexname FROM pg_indexes WHERE schemaname = %s"
                        " AND indexname LIKE 'chunks_embedding_%%'",
                        (SCHEMA,),
                    )
                }
        except psycopg.Error as error:
            hint = _setup_hint(conn, error)
            conn.close()
            raise self._error(f"the PostgreSQL index cannot be set up{hint}", error) from None
        return conn

    @contextmanager
    def _cursor(self, what: str, *, write: bool = False) -> Iterator[Any]:
        """A cursor in one transaction; a dropped connection is opened again once."""
        import psycopg

        with self._lock:
            if self._conn.closed or self._conn.broken:
                self._conn.close()
                self._conn = self._connect()
            if write:
                self._writes += 1
            try:
                with self._conn.transaction(), self._conn.cursor() as cursor:
                    yield cursor
            except psycopg.Error as error:
                raise self._error(what, error) from None

    def documents(self) -> dict[str, DocumentRecord]:
        with self._cursor("reading the documents failed") as cur:
            rows = cur.execute(
                f"SELECT path, status, content_hash, size, mtime_ns, reason, chunks"
                f" FROM {SCHEMA}.documents WHERE workspace = %s",
                (self.workspace,),
            ).fetchall()
        return {row[0]: DocumentRecord(*row) for row in rows}

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

    def _vector_index(self, cur: Any, size: int) -> None:
        cur.execute(
            f"CREATE INDEX IF NOT EXISTS chunks_embedding_{size:d} ON {SCHEMA}.chunks"
            f" USING hnsw ((embedding::vector({size:d})) vector_cosine_ops)"
            f" WHERE vector_dims(embedding) = {size:d}"
        )

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

    def chunks_of(self, path: str) -> list[Chunk]:
        with self._cursor(f"reading the chunks of {path} failed") as cur:
            rows = cur.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM {SCHEMA}.chunks c"
                " WHERE c.workspace = %s AND c.document = %s ORDER BY c.position",
                (self.workspace, path),
            ).fetchall()
        return [_chunk(row) for row in rows]

    def _weighted(self, cur: Any, words: list[str]) -> tuple[QueryPlan, list[float]]:
        """How ``words`` are ranked and the inverse document frequencies of its scored words."""
        self._count(cur, words)
        plan = plan_query(words, self._frequencies)
        total, found = self._total or 0, self._frequencies
        idf = [bm25_idf(total, found[word]) for word in plan.scored]
        return plan, idf

    def _count(self, cur: Any, words: list[str]) -> None:
        """Read the chunk frequencies of ``words`` (a word cached as found in no chunk is
        counted again: it may have been written since)."""
        if self._writes >= STATS_TTL or self._total is None:
            self._frequencies.clear()
            self._numbers.clear()
            self._writes = 0
            self._total, self._average = cur.execute(
                f"SELECT count(*), coalesce(avg(length), 1) FROM {SCHEMA}.chunks"
                " WHERE workspace = %s",
                (self.workspace,),
            ).fetchone()
        unknown = [word for word in words if not self._frequencies.get(word)]
        if unknown:  # counted by the writes
            counted = cur.execute(
                f"SELECT word, id, chunks FROM {SCHEMA}.words WHERE workspace = %s"
                " AND word = ANY(%s)",
                (self._workspace_id, unknown),
            ).fetchall()
            self._frequencies.update(dict.fromkeys(unknown, 0))
            for word, number, frequency in counted:
                self._frequencies[word], self._numbers[word] = int(frequency), int(number)
        if (self._total or 0) < EXACT_STATS_BELOW:
            self._writes = STATS_TTL  # a small index: exact statistics are cheap

    def _with_stop_words(self, cur: Any, lexical: list[Any], stops: list[str]) -> list[Any]:
        """``lexical``'s rows re-ranked with the query's stop words at a small weight
        (``stop_words.rescored``, as the SQLite store does), each ending with its new score."""
        self._count(cur, stops)
        corpus = Corpus(self._total or 0, float(self._average), dict(self._frequencies))
        candidates = [
            Candidate(
                number,
                float(row[-1]),
                tuple(map(" ".join, columns_of(str(row[4]), str(row[3]), str(row[5]))))
                if number < STOP_DEPTH
                else (),
            )
            for number, row in enumerate(lexical)
        ]
        return [(*lexical[key][:-1], score) for key, score in rescored(candidates, stops, corpus)]

    def search(self, query: str, k: int, *, vector: Sequence[float] | None = None) -> list[Hit]:
        words = query_terms(query)  # as SQLite: an identifier by its parts and whole
        if k <= 0 or (not words and vector is None):
            return []
        depth = max(k, FUSION_DEPTH)  # copies of a passage count once: read beyond k
        with self._cursor("search failed") as cur:
            plan, idf = self._weighted(cur, words) if words else (plan_query([], {}), [])
            lexical = self._lexical(cur, plan, idf, depth) if plan.scored else []
            stops = stop_terms(query)
            if stops and lexical:
                lexical = self._with_stop_words(cur, lexical, stops)
            if vector is None:
                ranked = [(row, float(row[-1])) for row in lexical]
                return [
                    Hit(_chunk(row[:-1]), score)
                    for row, score in distinct(ranked, k, passage=lambda row: row[3])
                ]
            dense = [row for row in self._nearest(cur, vector, depth) if row[-1] >= MIN_SIMILARITY]
        return _fuse([lexical, dense], k)

    def _lexical(self, cur: Any, plan: QueryPlan, idf: list[float], k: int) -> list[Any]:
        """Chunks by BM25 as SQLite FTS5 computes it: per word, IDF x the column-weighted
        term frequency (A 1, B 1, C 0.5) saturated by ``BM25_K1`` and length-normalised;
        every word of ``plan.scored`` scored, the chunks holding one of ``plan.matched``
        ranked. The candidates' rows from the GIN index on their word numbers, each scored
        word's frequency in a row by binary search of its sorted numbers (``width_bucket``),
        summed in the order of ``plan.scored``."""
        matched = [self._numbers[word] for word in plan.matched]
        picked = "words && %(matched)s::int[]"  # the GIN index: at most MATCH_BUDGET rows
        if plan.capped:  # common words: the lowest ids holding one, in id order (not GIN)
            picked = " OR ".join(f"words[width_bucket({n:d}, words)] = {n:d}" for n in matched)
            picked = f"({picked}) ORDER BY chunk LIMIT {CAPPED_ROWS:d}"
            for plan_kind in ("seqscan", "bitmapscan"):  # it cannot tell how common: it would
                cur.execute(f"SET LOCAL enable_{plan_kind} = off")  # read every row, then sort
        rows: list[Any] = cur.execute(
            f"SELECT {_CHUNK_COLUMNS}, best.score FROM (SELECT p.chunk, sum(p.idf * p.tf"
            " * (%(k1)s + 1) / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * p.length / %(avg)s))"
            " ORDER BY p.n) AS score FROM (SELECT t.chunk, t.length, q.idf, q.n, t.tfs[x.i]"
            " AS tf FROM (SELECT chunk, length, words, tfs"
            f" FROM {SCHEMA}.chunk_words WHERE workspace = %(ws)s"
            f" AND {picked}) AS t"
            " CROSS JOIN unnest(%(words)s::int[], %(idf)s::float8[])"
            " WITH ORDINALITY AS q(word, idf, n) CROSS JOIN LATERAL (SELECT"
            " width_bucket(q.word, t.words) AS i) AS x WHERE t.words[x.i] = q.word OFFSET 0)"
            " AS p GROUP BY p.chunk ORDER BY score DESC, p.chunk LIMIT %(k)s"
            f") AS best JOIN {SCHEMA}.chunks c ON c.id = best.chunk ORDER BY best.score DESC, c.id",
            {
                "k1": BM25_K1,
                "b": BM25_B,
                "avg": max(float(self._average), 1.0),
                "words": [self._numbers[word] for word in plan.scored],
                "idf": idf,
                "ws": self._workspace_id,
                "matched": matched,
                "k": k,
            },
        ).fetchall()
        if plan.capped:  # the nearest neighbours' query after it plans as usual
            cur.execute("SET LOCAL enable_seqscan = on; SET LOCAL enable_bitmapscan = on")
        return rows

    def _nearest(self, cur: Any, vector: Sequence[float], k: int) -> list[Any]:
        size = len(vector)
        literal = vector_literal(vector)
        if self._iterative:
            cur.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        rows: list[Any] = cur.execute(
            f"SELECT {_CHUNK_COLUMNS}, 1 - (c.embedding::vector({size:d})"
            f" <=> %s::vector({size:d})) FROM {SCHEMA}.chunks c"
            f" WHERE c.workspace = %s AND vector_dims(c.embedding) = {size:d}"
            f" ORDER BY c.embedding::vector({size:d}) <=> %s::vector({size:d}) LIMIT %s",
            (literal, self.workspace, literal, k),
        ).fetchall()
        return rows

    def counts(self) -> dict[str, int]:
        with self._cursor("counting documents failed") as cur:
            rows = cur.execute(
                f"SELECT status, count(*) FROM {SCHEMA}.documents WHERE workspace = %s"
                " GROUP BY status",
                (self.workspace,),
            ).fetchall()
        found = dict(rows)
        return {status: int(found.get(status, 0)) for status in STATUSES}

    def chunk_count(self) -> int:
        with self._cursor("counting chunks failed") as cur:
            row = cur.execute(
                f"SELECT count(*) FROM {SCHEMA}.chunks WHERE workspace = %s", (self.workspace,)
            ).fetchone()
        return int(row[0])

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Writes stay one transaction each (the server batches nothing worth the locks)."""
        yield

    def close(self) -> None:
        with self._lock:
            self._conn.close()


PGVECTOR = "https://github.com/pgvector/pgvector"
INSUFFICIENT_PRIVILEGE = "42501"


def _setup_hint(conn: Any, error: Any) -> str:
    """What to do about a failed set-up: the pgvector extension missing from the server, or
    installed but not created in this database by a role that may not create it."""
    import psycopg

    if getattr(error, "sqlstate", None) != INSUFFICIENT_PRIVILEGE and "vector" not in str(error):
        return ""
    try:
        available, created = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector'),"
            " EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector')"
        ).fetchone()
    except psycopg.Error:
        available = created = None
    if available is False:
        return f" — the pgvector extension is not installed on the PostgreSQL server ({PGVECTOR})"
    if created is False and getattr(error, "sqlstate", None) == INSUFFICIENT_PRIVILEGE:
        return (
            " — pgvector is installed on the server but not created in this database, and"
            " this role may not create it: a superuser must run `CREATE EXTENSION vector;`"
            " in this database once"
        )
    if getattr(error, "sqlstate", None) == INSUFFICIENT_PRIVILEGE:
        return (
            f" — this role may not create the {SCHEMA} schema or its tables: grant it CREATE"
            " on the database, or let its owner run `agent-ls index` once"
        )
    return ""


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def _rechunk_markdown(conn: Any) -> None:
    """Every workspace's markdown documents marked changed when ``CHUNKS_VERSION`` changed
    (their next update reads and cuts them again, keeping the vectors of unchanged chunk
    texts); then the version is recorded. In the caller's transaction, under the schema lock."""
    from actions.index.chunking import CHUNKS_VERSION, markdown_paths

    row = conn.execute(f"SELECT value FROM {SCHEMA}.meta WHERE key = 'chunks_version'").fetchone()
    if row is not None and row[0] == str(CHUNKS_VERSION):
        return
    paths = [path for (path,) in conn.execute(f"SELECT DISTINCT path FROM {SCHEMA}.documents")]
    conn.execute(
        f"UPDATE {SCHEMA}.documents SET mtime_ns = 0, content_hash = '' WHERE path = ANY(%s)",
        (markdown_paths(paths),),
    )
    conn.execute(
        f"INSERT INTO {SCHEMA}.meta VALUES ('chunks_version', %s)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (str(CHUNKS_VERSION),),
    )


def _fuse(rankings: list[list[Any]], k: int) -> list[Hit]:
    """``embeddings.hybrid`` of the lexical and the dense ranking of chunk rows ending with
    their score (identified by document, position; a passage by its content)."""
    rows = {(row[0], row[1]): row for ranking in rankings for row in reversed(ranking)}
    scored = [[((row[0], row[1]), float(row[-1])) for row in ranking] for ranking in rankings]
    fused = hybrid(scored[0], scored[1], k, passage=lambda key: rows[key][3])
    return [Hit(_chunk(rows[key][:-1]), score) for key, score in fused]


def _chunk(row: Sequence[Any]) -> Chunk:
    (document, position, kind, content, indexed, summary, atomic, headings, start, end) = row[:10]
    language, embedding_status, start_page, end_page = row[10:14]
    return Chunk(
        document=str(document),
        position=int(position),
        type=kind,
        content=str(content),
        indexed_text=str(indexed),
        summary=str(summary),
        is_atomic=bool(atomic),
        headings=tuple(headings),
        start_line=int(start),
        end_line=int(end),
        language=str(language),
        start_page=int(start_page),
        end_page=int(end_page),
        embedding_status=embedding_status,
    )
