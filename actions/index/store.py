"""The index store protocol and how a workspace's store is chosen.

A backend keeps documents (``DocumentRecord``) and their chunks, and answers ranked searches.
Calls are synchronous (callers off the event loop use ``asyncio.to_thread``) and each method is
atomic on its own: ``replace_chunks`` swaps a document's chunks and record in one transaction,
so a crash never leaves half a document searchable.

Backends: ``SqliteStore`` (embedded, FTS5 BM25; the default, under
``$XDG_CACHE_HOME/agent-ls/index/<workspace key>/``) and ``PgStore`` (PostgreSQL + pgvector,
for ``postgresql://`` / ``postgres://`` URLs; many workspaces in one database, by key).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from actions.index.model import (
    Chunk,
    DocumentRecord,
    EmbeddingResult,
    Hit,
    PendingEmbedding,
    StoreError,
)
from actions.private import data_root

__all__ = [
    "INDEX_DIR_ENV",
    "INDEX_URL_ENV",
    "Store",
    "StoreError",
    "default_index_dir",
    "open_store",
    "workspace_key",
]

INDEX_DIR_ENV = "AGENT_LS_INDEX_DIR"
INDEX_URL_ENV = "AGENT_LS_INDEX_URL"


class Store(Protocol):
    """What the indexer and search need from a backend."""

    @property
    def backend(self) -> str:
        """A short name: ``sqlite``, ``postgresql``."""
        ...

    @property
    def location(self) -> str:
        """Where the index lives (a file path or a URL without password)."""
        ...

    def documents(self) -> dict[str, DocumentRecord]:
        """Every known document by path."""
        ...

    def put_document(self, record: DocumentRecord) -> None:
        """Insert or update a document's record; its chunks are kept."""
        ...

    def put_documents(self, records: Sequence[DocumentRecord]) -> None:
        """``put_document`` for many, in one transaction."""
        ...

    def replace_chunks(self, record: DocumentRecord, chunks: Sequence[Chunk]) -> None:
        """Atomically replace the chunks of ``record.path`` and store ``record``."""
        ...

    def replace_many(self, documents: Sequence[tuple[DocumentRecord, Sequence[Chunk]]]) -> None:
        """``replace_chunks`` for each document (a full build's batch); when it raises, any
        of them may or may not be written (the caller writes them again one by one)."""
        ...

    def batch(self) -> AbstractContextManager[None]:
        """Group the writes made inside (in this thread, with no await between them) into few
        transactions; each write stays atomic on its own."""
        ...

    def remove_document(self, path: str) -> None:
        """Forget a document and its chunks (no error when unknown)."""
        ...

    def chunks_of(self, path: str) -> list[Chunk]:
        """A document's chunks in position order."""
        ...

    def search(self, query: str, k: int, *, vector: Sequence[float] | None = None) -> list[Hit]:
        """The ``k`` best chunks for ``query``: BM25, or with ``vector`` (a query embedding)
        BM25 and cosine similarity fused by ``embeddings.hybrid`` (chunks of the same text
        listed once; chunks without a vector take part through BM25 only; dense-only hits
        need ``MIN_SIMILARITY``)."""
        ...

    def counts(self) -> dict[str, int]:
        """Documents by status (every status present, zero included)."""
        ...

    def chunk_count(self) -> int: ...

    def queue_embeddings(self) -> int:
        """Mark chunks written without an embedder (``none``) ``pending``; how many."""
        ...

    def pending_embeddings(self, limit: int) -> list[PendingEmbedding]:
        """Up to ``limit`` chunks waiting for their vector, oldest first."""
        ...

    def store_embeddings(self, results: Sequence[EmbeddingResult]) -> int:
        """Store vectors (``ready``) or failures (``failed`` + reason) of chunks that still have
        the embedded text (same ``text_hash``, still ``pending``); how many were stored."""
        ...

    def retry_embeddings(self, keys: Sequence[tuple[int, str]] | None = None) -> int:
        """Make ``failed`` chunks ``pending`` again: those of ``keys`` (``(id, text_hash)``,
        still with that text), or every failed one (``None``); how many."""
        ...

    def embedding_counts(self) -> dict[str, int]:
        """Chunks by embedding status (every status present, zero included)."""
        ...

    def embedding_failures(self, limit: int) -> list[tuple[str, str]]:
        """``(document, reason)`` of chunks whose embedding failed."""
        ...

    def vector_search(self) -> dict[str, object]:
        """How the nearest chunks are found now, for status: ``kind`` (``hnsw`` graph,
        ``exact``, ``not loaded`` before the first search, ``pgvector``), the ``vectors`` in
        the graph, whether a graph is ``building``, the last build ``error``."""
        ...

    def close(self) -> None: ...


def workspace_key(root: Path) -> str:
    """The same key the checkpoint store uses: a hash of the workspace's real path."""
    return hashlib.sha256(os.fsencode(os.path.realpath(root))).hexdigest()[:20]


def default_index_dir(root: Path) -> Path:
    """Where the embedded index of ``root`` lives (outside the workspace)."""
    base = os.environ.get(INDEX_DIR_ENV)
    if base:
        return Path(base) / workspace_key(root)
    return data_root() / "index" / workspace_key(root)


def open_store(root: Path, url: str = "") -> Store:
    """The store of ``root``: ``url`` (or ``$AGENT_LS_INDEX_URL``) when set, else SQLite."""
    url = url or os.environ.get(INDEX_URL_ENV, "")
    if url.startswith(("postgresql://", "postgres://")):
        from actions.index.pg_store import PgStore

        return PgStore(url, workspace_key(root))
    if url and not url.startswith("sqlite:"):
        scheme = re.match(r"[A-Za-z][A-Za-z0-9+.-]*(?=:)", url)  # never the rest: a password
        what = f"scheme {scheme[0]!r}" if scheme else "(not a URL: a key=value string?)"
        raise StoreError(
            f"unsupported index URL {what}: use postgresql://HOST:PORT/DATABASE (with"
            " USER:PASSWORD@ before the host) or leave it empty"
        )
    from actions.index.sqlite_store import SqliteStore

    if url.startswith("sqlite:"):
        path = Path(url.removeprefix("sqlite://").removeprefix("sqlite:"))
        return SqliteStore(path, own_folder=False)
    return SqliteStore(default_index_dir(root) / "index.sqlite3")
