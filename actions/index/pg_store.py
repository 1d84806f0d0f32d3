"""The team index: the same store on PostgreSQL + pgvector (``indexUrl = postgresql://...``).

One database can hold the indexes of many workspaces: every row carries its workspace key
(the hash ``workspace_key`` gives), so a team shares one server. The tables live in their own
schema (``agent_ls``, pg_schema.py), created on first use together with ``CREATE EXTENSION
vector``. This module is the connection (one per store, a transaction per call, opened again
once when dropped) and the store's reads of its documents; the rest is one module per
concept, mixed into ``PgStore``:

- pg_writes.py: documents and chunks written, a batch of documents per transaction;
- pg_postings.py: the words of the chunks (numbers, chunk counts, a row of sorted numbers and
  column-weighted frequencies per chunk under GIN), written with the chunks;
- pg_search.py: BM25 as FTS5 computes it over those words, the stop words' re-rank, copies
  listed once, the hybrid ranking. Former layouts: a weighted ``tsvector`` under GIN (each
  candidate's whole ``tsvector`` unnested per query: p50 71.6 ms at 20k chunks), then a row
  per posting under a covering B-tree (fast, but 30x the space): docs/retrieval.md.
  ``ts_rank_cd`` (cover density, no document frequencies) was measured instead and ranks
  worse: hit@5 0.74 against 0.90 on bench/retrieval_pg.py's questions;
- pg_embeddings.py: the vectors, in a ``vector`` column (any dimension; an HNSW index per
  dimension in use, created on first write or first stored embedding), their lifecycle
  (pending -> ready / failed, kept by text hash) and the nearest neighbours.

The password of the URL never appears in ``location`` nor in an error message.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from actions.index.model import STATUSES, DocumentRecord, StoreError
from actions.index.pg_postings import (
    POSTINGS_DDL,
    POSTINGS_INDEXES,
    prune,
    retokenize,
    workspace_number,
)
from actions.index.pg_schema import (
    META_DDL,
    SCHEMA,
    TABLES_DDL,
    rechunk_markdown,
    setup_hint,
    version,
)
from actions.index.pg_search import PgSearch
from actions.index.pg_writes import PgWrites

CONNECT_TIMEOUT = 10
_DDL = f"{TABLES_DDL}{POSTINGS_DDL}{POSTINGS_INDEXES}{META_DDL}"


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


class PgStore(PgWrites, PgSearch):
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
                prune(conn)
                rechunk_markdown(conn)
                self._workspace_id = workspace_number(conn, self.workspace)
                row = conn.execute(
                    "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                ).fetchone()
                self._iterative = version(str(row[0]) if row else "") >= (0, 8)
                self._dimensions = {
                    int(row[0].rsplit("_", 1)[1])
                    for row in conn.execute(
                        "SELECT indexname FROM pg_indexes WHERE schemaname = %s"
                        " AND indexname LIKE 'chunks_embedding_%%'",
                        (SCHEMA,),
                    )
                }
        except psycopg.Error as error:
            hint = setup_hint(conn, error)
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
