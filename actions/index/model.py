"""The retrieval index's data: documents, chunks and search hits (SPEC §10)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

DocumentStatus = Literal["pending", "chunked", "ready", "failed"]
STATUSES: tuple[DocumentStatus, ...] = ("pending", "chunked", "ready", "failed")
ChunkType = Literal["text", "list", "table", "code"]
# "none": no embedder was around when the chunk was written (queued when one is);
# "pending": waiting for the background embedder; "ready": has its vector; "failed": see
# ``embedding_error``.
EmbeddingStatus = Literal["none", "pending", "ready", "failed"]
EMBEDDING_STATUSES: tuple[EmbeddingStatus, ...] = ("none", "pending", "ready", "failed")


@dataclass(frozen=True)
class DocumentRecord:
    """One workspace file as the index knows it.

    ``path`` is workspace-relative posix; ``content_hash`` the sha256 of the bytes chunked
    (``""`` before the first read); ``size`` / ``mtime_ns`` let an unchanged file be skipped
    without reading it; ``reason`` says why a ``failed`` document was not indexed.
    """

    path: str
    status: DocumentStatus
    content_hash: str = ""
    size: int = 0
    mtime_ns: int = 0
    reason: str = ""
    chunks: int = 0


@dataclass(frozen=True)
class Chunk:
    """One searchable unit. ``indexed_text`` is what is matched (heading path + summary, plus
    the text itself for prose and short code); ``content`` is the original element returned to
    the reader; ``lines`` are 1-based inclusive (for a PDF: lines of its markdown conversion,
    with ``start_page`` / ``end_page`` saying where the chunk is in the PDF)."""

    document: str
    position: int
    type: ChunkType
    content: str
    indexed_text: str
    summary: str = ""
    is_atomic: bool = False
    headings: tuple[str, ...] = ()
    start_line: int = 1
    end_line: int = 1
    language: str = ""
    start_page: int = 0  # a PDF's chunk: its first and last page (1-based); 0: not paged
    end_page: int = 0
    embedding_status: EmbeddingStatus = "none"
    embedding: tuple[float, ...] | None = field(default=None, repr=False)

    @property
    def pages(self) -> str:
        """``page 3`` / ``pages 3-4`` for a PDF's chunk, ``""`` otherwise."""
        if not self.start_page:
            return ""
        if self.end_page > self.start_page:
            return f"pages {self.start_page}-{self.end_page}"
        return f"page {self.start_page}"


def with_embedding_status(chunk: Chunk, status: EmbeddingStatus) -> Chunk:
    """``dataclasses.replace(chunk, embedding_status=status)`` at a quarter of its cost (a
    build with an embedder marks every chunk of the workspace ``pending``): the new chunk's
    fields are the old one's, as they are (``Chunk`` checks nothing on creation)."""
    copied = object.__new__(Chunk)
    copied.__dict__.update(chunk.__dict__)
    copied.__dict__["embedding_status"] = status
    return copied


@dataclass(frozen=True)
class PendingEmbedding:
    """A chunk waiting for its vector: its row id, the hash of ``text`` and the text to embed
    (the chunk's ``indexed_text``: what lexical search matches too)."""

    id: int
    text_hash: str
    text: str


@dataclass(frozen=True)
class EmbeddingResult:
    """The vector of a ``PendingEmbedding`` (or why there is none). Stored only when the chunk
    still has the same ``text_hash`` (it may have been replaced meanwhile)."""

    id: int
    text_hash: str
    vector: Sequence[float] | None
    error: str = ""


@dataclass(frozen=True)
class Hit:
    """A search result: the original element and its score (higher is better)."""

    chunk: Chunk
    score: float

    def to_json(self) -> dict[str, Any]:
        """The wire record of `agent-ls search --json` and `agent/search`."""
        chunk = self.chunk
        record: dict[str, Any] = {
            "path": chunk.document,
            "startLine": chunk.start_line,
            "endLine": chunk.end_line,
            "type": chunk.type,
            "headings": list(chunk.headings),
            "content": chunk.content,
            "summary": chunk.summary,
            "score": round(self.score, 6),
        }
        if chunk.start_page:  # a PDF: lines are those of its markdown text, pages say where
            record["startPage"], record["endPage"] = chunk.start_page, chunk.end_page
        return record


@dataclass(frozen=True)
class IndexStatus:
    """Counts of documents by status, chunk count and the failures with their reasons."""

    counts: dict[str, int]
    chunks: int
    failures: list[DocumentRecord]
    backend: str
    location: str
    dense: bool = False
    embeddings: dict[str, Any] = field(default_factory=dict)
    summaries: dict[str, Any] = field(default_factory=dict)  # provider or fallback (why)

    def to_json(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "location": self.location,
            "dense": self.dense,
            "embeddings": dict(self.embeddings),
            "summaries": dict(self.summaries),
            "documents": dict(self.counts),
            "chunks": self.chunks,
            "failures": [{"path": f.path, "reason": f.reason} for f in self.failures],
        }


class StoreError(Exception):
    """The index store cannot be opened or used (the message says why and what to do)."""
