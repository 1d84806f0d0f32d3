"""The first hybrid search after a large build does not wait for the vector graph: it answers
exactly while the graph is built on a niced thread, whose progress the status shows; a
one-shot search starts no build (issue 27, item 7)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest

from actions.index.model import Chunk, DocumentRecord
from actions.index.sqlite_store import SqliteStore
from server.commands.index import render_vector_search
from server.protocol import VectorSearchReport, from_wire, to_wire

# Not importorskip: usearch imported before onnxruntime crashes the process (sqlite_ann._usearch).
pytestmark = pytest.mark.skipif(find_spec("usearch") is None, reason="the embeddings extra")

DIM = 384
PER_DOC = 500
DOCS = 40  # 20,000 vectors: a graph build of many batches (2,048 vectors each)


def fill(store: SqliteStore) -> np.ndarray:
    rng = np.random.default_rng(5)
    matrix = rng.standard_normal((DOCS * PER_DOC, DIM)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    with store.batch():
        for doc in range(DOCS):
            name = f"d{doc}.md"
            chunks = [
                Chunk(
                    name,
                    position,
                    "text",
                    f"chunk {doc} {position}",
                    f"chunk {doc} {position}",
                    embedding_status="ready",
                    embedding=matrix[doc * PER_DOC + position],  # type: ignore[arg-type]
                )
                for position in range(PER_DOC)
            ]
            store.replace_chunks(DocumentRecord(name, "ready", "h", chunks=PER_DOC), chunks)
    return matrix


@pytest.fixture
def big(tmp_path: Path) -> Iterator[tuple[SqliteStore, np.ndarray]]:
    store = SqliteStore(tmp_path / "index.sqlite3", ann_min=10_000)
    matrix = fill(store)
    yield store, matrix
    store.close()  # stops the build between two batches


def exact_best(matrix: np.ndarray, query: np.ndarray, k: int) -> list[tuple[str, int]]:
    order = np.argsort(-(matrix @ query))[:k]
    return [(f"d{i // PER_DOC}.md", int(i % PER_DOC)) for i in order]


def builder() -> threading.Thread | None:
    return next((t for t in threading.enumerate() if t.name == "vector-index"), None)


def test_the_first_search_answers_exactly_while_the_graph_is_built(big) -> None:
    store, matrix = big
    query = matrix[123] + 0.9 * matrix[4567]  # two neighbours near 0.7, the rest near 0
    query /= np.linalg.norm(query)
    hits = store.search("", 5, vector=query)  # the first hybrid search after the build
    found = [(hit.chunk.document, hit.chunk.position) for hit in hits]
    assert found == exact_best(matrix, query, 2) == [("d0.md", 123), ("d9.md", 67)]
    report = store.vector_search()
    assert report["kind"] == "exact"
    assert report["building"] is True
    progress = report["progress"]
    assert isinstance(progress, dict)
    assert progress["total"] == DOCS * PER_DOC
    assert 0 <= progress["added"] < progress["total"]
    thread = builder()
    assert thread is not None
    assert thread.native_id is not None
    while thread.is_alive() and os.getpriority(os.PRIO_PROCESS, thread.native_id) == (
        os.getpriority(os.PRIO_PROCESS, 0)
    ):  # it nices itself first thing
        thread.join(0.05)
    assert os.getpriority(os.PRIO_PROCESS, thread.native_id) > os.getpriority(os.PRIO_PROCESS, 0)


def test_a_one_shot_search_starts_no_build(big) -> None:
    store, matrix = big
    store.no_graph_builds()
    hits = store.search("", 3, vector=matrix[7])
    assert (hits[0].chunk.document, hits[0].chunk.position) == ("d0.md", 7)
    assert store.vector_search() == {"kind": "exact", "building": False, "pending": True}
    assert builder() is None


def test_status_and_the_cli_show_the_progress() -> None:
    wire = {"kind": "exact", "building": True, "progress": {"added": 4096, "total": 20000}}
    assert to_wire(from_wire(wire, VectorSearchReport)) == wire
    assert "graph building (4096/20000)" in render_vector_search(wire)
