"""Both stores rank by FTS5's BM25 (issue #27): a word in half the chunks or more weighs
(almost) nothing — FTS5's inverse document frequency ``log((N - n + 0.5) / (n + 0.5))`` is
floored at 1e-6 — so the chunk holding the rare word of the question comes first on
PostgreSQL too (its former ``log(1 + ...)`` still gave such a word 0.36 here, and a short
chunk repeating it outranked the answer)."""

from __future__ import annotations

from actions.index.store import Store
from tests.unit.index.test_store import backend, chunk, ready, store

__all__ = ["backend", "store"]  # the fixtures, parametrized over the backends

DOCS = {
    "answer.md": "An upload goes through the queue, then a worker writes it to the disk and"
    " reports the result to the caller once the copy is complete; a failed copy is retried"
    " three times, each attempt waiting twice as long as the one before it, and the caller"
    " is told of every attempt by an event carrying its number and its error.",
    "noise.md": "Server, server, server: the server of servers.",
    "start.md": "The server starts.",
    "stop.md": "The server stops.",
}


def test_a_word_in_most_chunks_weighs_nothing_on_both_stores(store: Store) -> None:
    for path, text in DOCS.items():
        store.replace_chunks(ready(path, 1), [chunk(path, 0, text)])
    hits = store.search("server upload", 4)
    assert [hit.chunk.document for hit in hits][:2] == ["answer.md", "noise.md"]
