"""The vector half of the store contract, against every backend (SQLite and a real PostgreSQL):
the embedding lifecycle (pending -> ready / failed), vectors kept while a chunk's text is
unchanged, and hybrid ranking (BM25 and cosine fused by relative score fusion)."""

from __future__ import annotations

from collections.abc import Callable

from actions.index.model import Chunk, DocumentRecord, EmbeddingResult
from actions.index.store import Store
from tests.unit.index.test_store import backend, store

__all__ = ["backend", "store"]  # the fixtures, parametrized over the backends

ROTATE = "how to rotate credentials"
SECRETS = "changing your secret keys regularly"
IMAGE = "rotate the image by ninety degrees"
VECTORS = {ROTATE: (1.0, 0.0, 0.0), SECRETS: (0.9, 0.3, 0.0), IMAGE: (0.0, 0.0, 1.0)}


def pending(path: str, position: int, content: str) -> Chunk:
    return Chunk(
        document=path,
        position=position,
        type="text",
        content=content,
        indexed_text=f"{path}\n\n{content}",
        embedding_status="pending",
    )


def ready(path: str, count: int, content_hash: str = "h") -> DocumentRecord:
    return DocumentRecord(path, "ready", content_hash, 1, 1, chunks=count)


def embed_pending(store: Store, vectors: dict[str, tuple[float, ...]]) -> list[str]:
    """What a background embedder does, with fixed vectors by content; the texts embedded."""
    batch = store.pending_embeddings(100)
    results = []
    for item in batch:
        content = item.text.split("\n", 2)[2]
        results.append(EmbeddingResult(item.id, item.text_hash, vectors[content]))
    assert store.store_embeddings(results) == len(results)
    return [item.text.split("\n", 2)[2] for item in batch]


def write_three(store: Store) -> None:
    store.replace_chunks(
        ready("a.md", 3),
        [pending("a.md", 0, ROTATE), pending("a.md", 1, SECRETS), pending("a.md", 2, IMAGE)],
    )


def test_chunks_are_searchable_by_bm25_before_they_have_vectors(store: Store) -> None:
    write_three(store)
    assert store.embedding_counts() == {"none": 0, "pending": 3, "ready": 0, "failed": 0}
    assert [hit.chunk.position for hit in store.search("rotate credentials", 3)] == [0, 2]
    # a query vector with no vector stored yet: the lexical ranking alone
    hybrid = store.search("rotate credentials", 3, vector=(1.0, 0.0, 0.0))
    assert [hit.chunk.position for hit in hybrid] == [0, 2]
    embed_pending(store, VECTORS)  # the background embedder caught up: the synonym comes in
    hybrid = store.search("rotate credentials", 3, vector=(0.9, 0.3, 0.0))
    assert [hit.chunk.position for hit in hybrid] == [0, 2, 1]  # after BM25's first hits


def test_hybrid_ranking_finds_the_synonym_bm25_misses(store: Store) -> None:
    write_three(store)
    assert sorted(embed_pending(store, VECTORS)) == sorted(VECTORS)
    assert store.embedding_counts()["ready"] == 3
    assert store.pending_embeddings(10) == []
    lexical = [hit.chunk.position for hit in store.search("rotate credentials", 3)]
    assert lexical == [0, 2]  # words only: the image rotation matches, the synonym does not
    hybrid = store.search("rotate credentials", 3, vector=(0.9, 0.3, 0.0))
    # BM25's first hits stay first (embeddings.hybrid keeps its top three), the synonym
    # (dense 1st, no word in common) comes after them
    assert [hit.chunk.position for hit in hybrid] == [0, 2, 1]
    assert hybrid[0].score >= hybrid[1].score >= hybrid[2].score
    assert hybrid[2].chunk.content == SECRETS  # the original element, as for BM25 hits
    # no word in common at all: the nearest vectors, and only the similar ones
    dense = store.search("zzz", 3, vector=(1.0, 0.05, 0.0))
    assert [hit.chunk.content for hit in dense] == [ROTATE, SECRETS]
    assert store.search("zzz", 3, vector=(0.0, -1.0, 0.0)) == []  # nothing similar enough
    assert store.search("zzz", 3, vector=(1.0, 0.0)) == []  # another model's size: no match


def test_only_changed_text_needs_a_new_vector(store: Store) -> None:
    write_three(store)
    embed_pending(store, VECTORS)
    edited = "changing your secret keys every month"
    store.replace_chunks(
        ready("a.md", 3, "h2"),
        [pending("a.md", 0, ROTATE), pending("a.md", 1, edited), pending("a.md", 2, IMAGE)],
    )
    assert store.embedding_counts() == {"none": 0, "pending": 1, "ready": 2, "failed": 0}
    assert embed_pending(store, {edited: (0.8, 0.4, 0.0)}) == [edited]
    near = store.search("zzz", 1, vector=(0.0, 0.0, 1.0))
    assert [hit.chunk.content for hit in near] == [IMAGE]  # the kept vector still counts
    store.remove_document("a.md")
    assert store.search("zzz", 3, vector=(1.0, 0.0, 0.0)) == []
    assert store.embedding_counts()["ready"] == 0


def test_a_vector_for_replaced_text_is_not_stored(store: Store) -> None:
    store.replace_chunks(ready("a.md", 1), [pending("a.md", 0, ROTATE)])
    (stale,) = store.pending_embeddings(10)
    store.replace_chunks(ready("a.md", 1, "h2"), [pending("a.md", 0, IMAGE)])  # edited meanwhile
    assert store.store_embeddings([EmbeddingResult(stale.id, stale.text_hash, (1.0, 0, 0))]) == 0
    (fresh,) = store.pending_embeddings(10)
    assert fresh.text.endswith(IMAGE)
    assert store.embedding_counts()["pending"] == 1


def test_a_failed_embedding_keeps_its_reason_and_bm25_still_finds_it(store: Store) -> None:
    store.replace_chunks(ready("a.md", 1), [pending("a.md", 0, ROTATE)])
    (item,) = store.pending_embeddings(10)
    failure = EmbeddingResult(item.id, item.text_hash, None, "embedding failed: RuntimeError")
    assert store.store_embeddings([failure]) == 1
    assert store.embedding_counts()["failed"] == 1
    assert store.embedding_failures(10) == [("a.md", "embedding failed: RuntimeError")]
    assert store.pending_embeddings(10) == []
    assert [hit.chunk.content for hit in store.search("credentials", 3)] == [ROTATE]


def test_a_failed_embedding_can_be_retried_while_its_text_is_the_same(store: Store) -> None:
    write_three(store)
    items = store.pending_embeddings(10)
    failures = [EmbeddingResult(i.id, i.text_hash, None, "embedding failed: E") for i in items]
    assert store.store_embeddings(failures) == 3
    first, *_ = items
    assert store.retry_embeddings([(first.id, first.text_hash)]) == 1
    assert store.retry_embeddings([(first.id, "another text")]) == 0  # not that text any more
    assert [item.id for item in store.pending_embeddings(10)] == [first.id]
    assert store.embedding_counts() == {"none": 0, "pending": 1, "ready": 0, "failed": 2}
    assert store.retry_embeddings() == 2  # every failed chunk
    assert embed_pending(store, VECTORS) == [ROTATE, SECRETS, IMAGE]
    assert store.retry_embeddings() == 0


def test_chunks_written_without_an_embedder_are_queued_later(store: Store) -> None:
    plain = Chunk("b.md", 0, "text", IMAGE, f"b.md\n\n{IMAGE}")  # embedding_status "none"
    store.replace_chunks(ready("b.md", 1), [plain])
    assert store.pending_embeddings(10) == []
    assert store.queue_embeddings() == 1
    assert embed_pending(store, VECTORS) == [IMAGE]
    assert store.queue_embeddings() == 0


def test_vectors_survive_reopening(backend: Callable[[], Store]) -> None:
    first = backend()
    write_three(first)
    embed_pending(first, VECTORS)
    first.close()
    second = backend()
    assert second.embedding_counts()["ready"] == 3
    assert second.pending_embeddings(10) == []
    hybrid = second.search("zzz", 1, vector=(0.0, 0.0, 1.0))
    assert [hit.chunk.content for hit in hybrid] == [IMAGE]
    second.close()


def test_another_connection_sees_new_vectors(backend: Callable[[], Store]) -> None:
    reader, writer = backend(), backend()  # e.g. the server and `agent-ls index`
    writer.replace_chunks(ready("a.md", 1), [pending("a.md", 0, IMAGE)])
    assert reader.search("zzz", 1, vector=(0.0, 0.0, 1.0)) == []
    embed_pending(writer, VECTORS)
    assert [hit.chunk.content for hit in reader.search("zzz", 1, vector=(0.0, 0.0, 1.0))] == [IMAGE]
    writer.remove_document("a.md")
    assert reader.search("zzz", 1, vector=(0.0, 0.0, 1.0)) == []
    reader.close()
    writer.close()
