"""The hybrid rule (issue #27): BM25's first three hits stay first, in BM25's order; the
vectors add chunks after them (fused by relative scores), so a lexical answer is never pushed
out of the first ranks by chunks only the vectors like. Both stores, real PostgreSQL."""

from __future__ import annotations

from actions.index.embeddings import LEXICAL_KEPT, hybrid
from actions.index.store import Store
from tests.unit.index.test_store import backend, store
from tests.unit.index.test_store_vectors import embed_pending, pending, ready

__all__ = ["backend", "store"]  # the fixtures, parametrized over the backends

TEXTS = {  # content -> its vector; the query's vector is (1, 0, 0)
    "cache eviction policy for the disk cache": (0.0, 1.0, 0.0),
    "the cache keeps entries until eviction": (0.0, 0.9, 0.1),
    "a cache entry eviction is logged": (0.0, 0.8, 0.2),
    "how stale items are dropped from storage": (1.0, 0.0, 0.0),
    "removing old things from the store": (0.99, 0.1, 0.0),
}


def test_bm25s_first_hits_stay_first_the_vectors_add_after_them(store: Store) -> None:
    contents = list(TEXTS)
    for number, content in enumerate(contents):
        store.replace_chunks(ready(f"d{number}.md", 1), [pending(f"d{number}.md", 0, content)])
    embed_pending(store, TEXTS)
    lexical = [hit.chunk.content for hit in store.search("cache eviction", 3)]
    assert lexical == contents[:3]
    found = store.search("cache eviction", 5, vector=(1.0, 0.0, 0.0))
    assert [hit.chunk.content for hit in found] == contents  # BM25's three, then the vectors'
    assert [hit.score for hit in found] == sorted((hit.score for hit in found), reverse=True)
    assert [hit.chunk.content for hit in store.search("cache eviction", 2, vector=(1, 0, 0))] == (
        contents[:2]
    )


def test_the_rule_on_rankings() -> None:
    lexical = [("a", 9.0), ("b", 3.0), ("c", 1.0), ("d", 0.5)]
    dense = [("x", 0.9), ("y", 0.8), ("d", 0.7)]
    fused = hybrid(lexical, dense, 5)
    assert [key for key, _ in fused][:LEXICAL_KEPT] == ["a", "b", "c"]
    assert [key for key, _ in fused] == ["a", "b", "c", "x", "y"]  # d: last of both
    assert [key for key, _ in hybrid([], dense, 2)] == ["x", "y"]  # no word matched: vectors
    assert [key for key, _ in hybrid(lexical, [], 2)] == ["a", "b"]
