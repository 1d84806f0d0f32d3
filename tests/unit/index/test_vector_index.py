"""The HNSW graph of the SQLite index through the store API, as the server and the CLI use it:
built from the blobs, saved beside the SQLite file and viewed again after a restart; kept in
step as chunks are added, removed and re-embedded (by this connection or another); a
missing, corrupt or stale file rebuilt, the answers right meanwhile. Answers are checked
against exact cosine search over the same vectors."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from actions.index.model import Chunk, DocumentRecord, EmbeddingResult
from actions.index.sqlite_store import SqliteStore

DIM = 16
DOCS = 8
PER_DOC = 6  # 48 vectors: over ANN_MIN below, so the store keeps a graph


def vectors(seed: int, count: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((count, DIM)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def chunks(doc: int, block: np.ndarray, status: str = "ready", text: str = "") -> list[Chunk]:
    name = f"d{doc}.md"
    return [
        Chunk(
            name,
            position,
            "text",
            f"chunk {doc} {position}{text}",
            f"{name}\n\nchunk {doc} {position}{text}",
            embedding_status=status,  # type: ignore[arg-type]
            embedding=block[position] if status == "ready" else None,  # type: ignore[arg-type]
        )
        for position in range(len(block))
    ]


def record(doc: int, digest: str = "h") -> DocumentRecord:
    return DocumentRecord(f"d{doc}.md", "ready", digest, chunks=PER_DOC)


def open_store(path: Path) -> SqliteStore:
    return SqliteStore(path, ann_min=20, delta_max=8)


def nearest(store: SqliteStore, query: np.ndarray, k: int = 5) -> list[tuple[str, int]]:
    return [(hit.chunk.document, hit.chunk.position) for hit in store.search("", k, vector=query)]


def like_exact(got: list, corpus: dict[tuple[str, int], np.ndarray], query: np.ndarray) -> bool:
    """``got`` answers like exact search, as an approximate (HNSW) graph can: the same best
    hit, and at least 4 of the exact 5 (bench/retrieval.py measures recall@10 0.993; on these
    48 random vectors a graph once returned the 6th neighbour for the 5th)."""
    want = exact(corpus, query)
    return len(got) == len(want) and got[:1] == want[:1] and len(set(got) & set(want)) >= 4


def exact(corpus: dict[tuple[str, int], np.ndarray], query: np.ndarray, k: int = 5) -> list:
    scored = sorted(corpus, key=lambda key: -float(corpus[key] @ query))
    return [key for key in scored if float(corpus[key] @ query) >= 0.25][:k]


def graph_files(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.vectors-*.usearch"))


@pytest.fixture
def filled(tmp_path: Path) -> Iterator[tuple[SqliteStore, Path, dict]]:
    path = tmp_path / "index" / "index.sqlite3"
    store = open_store(path)
    corpus = {}
    matrix = vectors(1, DOCS * PER_DOC)
    for doc in range(DOCS):
        block = matrix[doc * PER_DOC : (doc + 1) * PER_DOC]
        store.replace_chunks(record(doc), chunks(doc, block))
        corpus.update({(f"d{doc}.md", i): block[i] for i in range(PER_DOC)})
    yield store, path, corpus
    store.close()


def settle(store: SqliteStore) -> dict[str, object]:
    assert store.wait_for_vector_index(timeout=60)
    return store.vector_index()


def test_the_graph_is_built_saved_and_answers_like_exact_search(filled) -> None:
    store, path, corpus = filled
    assert graph_files(path) == []
    query = vectors(7, 1)[0]
    assert like_exact(nearest(store, query), corpus, query)  # before the graph: exact
    state = settle(store)
    assert state["kind"] == "hnsw"
    assert state["graph"] == DOCS * PER_DOC
    assert not state["error"]
    assert graph_files(path) == [Path(str(state["file"]))]
    for seed in range(10, 20):
        query = vectors(seed, 1)[0]
        assert like_exact(nearest(store, query), corpus, query)


def test_a_restart_views_the_saved_graph_without_rebuilding(filled) -> None:
    store, path, corpus = filled
    saved = settle(store)["file"]
    store.close()
    again = open_store(path)
    query = vectors(8, 1)[0]
    assert like_exact(nearest(again, query), corpus, query)
    state = again.vector_index()
    assert state["kind"] == "hnsw"
    assert state["file"] == saved
    assert state["delta"] == 0
    assert not state["building"]
    again.close()


def test_added_removed_and_re_embedded_chunks_are_searched_at_once(filled) -> None:
    store, _path, corpus = filled
    settle(store)
    query = vectors(9, 1)[0]
    # added: a chunk pointing at the query is the nearest at once (the graph is not rebuilt)
    store.replace_chunks(record(100), chunks(100, query[None, :]))
    assert nearest(store, query, 1) == [("d100.md", 0)]
    # removed: gone from the answers although the graph file still holds the old vectors
    best = exact(corpus, query, 1)[0]
    store.remove_document(best[0])
    corpus = {key: value for key, value in corpus.items() if key[0] != best[0]}
    corpus[("d100.md", 0)] = query
    assert like_exact(nearest(store, query), corpus, query)
    # re-embedded: the text of d100 changed; its new vector replaces the old one
    edited = chunks(100, query[None, :], status="pending", text=" edited")
    store.replace_chunks(record(100, "h2"), edited)
    assert ("d100.md", 0) not in nearest(store, query)  # pending: no vector yet
    (item,) = store.pending_embeddings(10)
    away = -query
    assert store.store_embeddings([EmbeddingResult(item.id, item.text_hash, away)]) == 1
    assert nearest(store, away, 1) == [("d100.md", 0)]
    assert ("d100.md", 0) not in nearest(store, query)
    corpus[("d100.md", 0)] = away
    assert like_exact(nearest(store, query), corpus, query)


def test_enough_changes_fold_into_a_new_file_and_the_old_one_goes(filled) -> None:
    store, path, corpus = filled
    first = settle(store)["file"]
    matrix = vectors(2, 2 * PER_DOC)
    for offset, doc in enumerate((200, 201)):  # 12 new vectors: over delta_max (8)
        block = matrix[offset * PER_DOC : (offset + 1) * PER_DOC]
        store.replace_chunks(record(doc), chunks(doc, block))
        corpus.update({(f"d{doc}.md", i): block[i] for i in range(PER_DOC)})
    state = settle(store)
    assert state["file"] != first
    assert graph_files(path) == [Path(str(state["file"]))]
    assert state["graph"] == len(corpus)
    assert state["delta"] == 0
    query = vectors(11, 1)[0]
    assert like_exact(nearest(store, query), corpus, query)
    store.close()
    again = open_store(path)  # the new file is the one a restart views
    assert like_exact(nearest(again, query), corpus, query)
    assert again.vector_index()["file"] == state["file"]
    again.close()


@pytest.mark.parametrize("damage", ["corrupt", "truncated", "missing"])
def test_a_damaged_graph_file_is_rebuilt_from_the_blobs(filled, damage: str) -> None:
    store, path, corpus = filled
    saved = Path(str(settle(store)["file"]))
    store.close()
    if damage == "missing":
        saved.unlink()
    elif damage == "truncated":
        saved.write_bytes(saved.read_bytes()[:200])
    else:
        saved.write_bytes(b"\x00garbage" * 500)
    again = open_store(path)
    query = vectors(12, 1)[0]
    assert like_exact(nearest(again, query), corpus, query)  # exact meanwhile, nothing lost
    state = settle(again)
    assert state["kind"] == "hnsw"
    assert state["graph"] == len(corpus)
    assert not state["error"]
    assert graph_files(path) == [Path(str(state["file"]))]
    assert like_exact(nearest(again, query), corpus, query)
    again.close()


def block_the_graph_file(path: Path) -> Path:
    """A directory where the first build will save its graph: the rename fails, a real
    OSError of the build (as a full or read-only disk would give)."""
    with sqlite3.connect(path) as db:
        (epoch,) = db.execute("SELECT value FROM vector_meta WHERE key = 'epoch'").fetchone()
        (seq,) = db.execute("SELECT max(seq) FROM vector_log").fetchone()
    blocker = path.with_name(f"{path.name}.vectors-{epoch}-{seq}.usearch")
    (blocker / "in-the-way").mkdir(parents=True)
    return blocker


@pytest.mark.parametrize("retry", [0.0, 3_600.0])
def test_a_failed_build_keeps_exact_search_and_is_tried_again_later(
    tmp_path: Path, retry: float
) -> None:
    path = tmp_path / "index.sqlite3"
    store = SqliteStore(path, ann_min=20, delta_max=8, graph_retry=retry)
    matrix = vectors(5, DOCS * PER_DOC)
    corpus = {}
    for doc in range(DOCS):
        block = matrix[doc * PER_DOC : (doc + 1) * PER_DOC]
        store.replace_chunks(record(doc), chunks(doc, block))
        corpus.update({(f"d{doc}.md", i): block[i] for i in range(PER_DOC)})
    blocker = block_the_graph_file(path)
    state = settle(store)
    assert state["kind"] == "exact"
    assert "IsADirectoryError" in str(state["error"])
    assert f"tried again in {retry:.0f} s" in str(state["error"])
    query = vectors(15, 1)[0]
    assert like_exact(nearest(store, query), corpus, query)  # nothing lost meanwhile
    (blocker / "in-the-way").rmdir()
    blocker.rmdir()
    state = settle(store)
    if retry:  # not before the delay: a disk that stays full is not hammered
        assert (state["kind"], state["graph"]) == ("exact", 0)
        assert "failed 1 time;" in str(state["error"])
    else:
        assert (state["kind"], state["graph"], state["error"]) == ("hnsw", len(corpus), "")
        assert like_exact(nearest(store, query), corpus, query)
    store.close()


def test_a_graph_left_half_written_by_a_crash_is_removed_once_stale(filled) -> None:
    store, path, _ = filled
    settle(store)
    store.close()
    crashed = path.with_name(f"{path.name}.vectors-0123456789abcdef-7.usearch.tmp")
    writing = path.with_name(f"{path.name}.vectors-fedcba9876543210-9.usearch.tmp")
    crashed.write_bytes(b"half")
    writing.write_bytes(b"being written by another process")
    os.utime(crashed, (time.time() - 7_200, time.time() - 7_200))
    again = open_store(path)
    settle(again)
    assert not crashed.exists()
    assert writing.exists()  # recent: may still be another process's build
    again.close()


def test_a_graph_file_of_another_index_is_not_used(filled) -> None:
    store, path, _corpus = filled
    saved = Path(str(settle(store)["file"]))
    store.close()
    stale = saved.read_bytes()
    for suffix in ("", "-wal", "-shm"):  # the index deleted and built again, other vectors
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    saved.write_bytes(stale)
    fresh = open_store(path)
    other = vectors(3, PER_DOC)
    fresh.replace_chunks(record(0), chunks(0, other))
    query = other[2]
    assert nearest(fresh, query, 1) == [("d0.md", 2)]
    assert fresh.vector_index()["kind"] == "exact"  # 6 vectors: under ann_min, no graph
    assert not saved.exists()  # the other index's file was removed
    fresh.close()


def test_another_connection_sees_the_graph_and_every_change(filled) -> None:
    store, path, corpus = filled
    settle(store)
    reader = open_store(path)  # e.g. the server while `agent-ls index` writes
    query = vectors(13, 1)[0]
    assert like_exact(nearest(reader, query), corpus, query)
    assert reader.vector_index()["kind"] == "hnsw"
    store.replace_chunks(record(300), chunks(300, query[None, :]))
    assert nearest(reader, query, 1) == [("d300.md", 0)]
    store.remove_document("d300.md")
    assert like_exact(nearest(reader, query), corpus, query)
    reader.close()


def test_without_a_graph_the_vector_log_does_not_grow_forever(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite3"
    store = SqliteStore(path, ann_min=1_000, delta_max=8)  # small: exact search, no graph
    other = SqliteStore(path, ann_min=1_000, delta_max=8)  # e.g. `agent-ls index` beside
    block = vectors(4, PER_DOC)
    assert nearest(other, block[3], 1) == []  # nothing yet; its state is at the log's start
    for round_ in range(6):  # the same document re-embedded: 6 removed + 6 added each time
        store.replace_chunks(record(0, str(round_)), chunks(0, block, text=f" v{round_}"))
        assert nearest(store, block[1], 1) == [("d0.md", 1)]
        assert store.wait_for_vector_index(timeout=30)
    (logged,) = sqlite3.connect(path).execute("SELECT count(*) FROM vector_log").fetchone()
    assert logged <= 2 * PER_DOC + 8
    assert graph_files(path) == []
    assert nearest(other, block[3], 1) == [("d0.md", 3)]  # behind the trimmed log: reads all
    store.close()
    other.close()


def test_many_removed_neighbours_do_not_shorten_the_answer(filled) -> None:
    store, _, corpus = filled
    settle(store)
    query = vectors(14, 1)[0]
    gone = {key[0] for key in exact(corpus, query, 3)}  # the documents of the 3 nearest
    for name in gone:
        store.remove_document(name)
    corpus = {key: value for key, value in corpus.items() if key[0] not in gone}
    assert store.vector_index()["graph"] == DOCS * PER_DOC  # still in the file: tombstones
    expected = exact(corpus, query, 5)
    assert len(expected) == 5  # the graph held more tombstones than that ahead of them
    assert nearest(store, query) == expected


def test_the_model_still_loads_after_a_graph_was_used() -> None:
    # importing onnxruntime after usearch crashed the process (a server builds or views a
    # graph, then embeds a query): a fresh interpreter in that order
    import subprocess
    import sys

    code = (
        "from actions.index.sqlite_ann import _new_graph\n"
        "_new_graph(4)\n"
        "import onnxruntime\n"
        "print('alive')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert (done.returncode, done.stdout.strip()) == (0, "alive"), done.stderr


def test_a_small_graph_reaches_every_vector_whatever_the_threads() -> None:
    """Two threads inserting into a graph smaller than its connectivity once left a node no
    search reached (1.2% of builds of these 48 vectors lost one of a query's 5 nearest): the
    first vectors go in by one thread. 300 builds, each answering ten queries like exact."""
    from actions.index import sqlite_ann

    matrix = vectors(1, DOCS * PER_DOC)
    corpus = {("d", i): matrix[i] for i in range(len(matrix))}
    queries = [vectors(seed, 1)[0] for seed in range(10, 20)]
    wrong = 0
    for _ in range(300):
        graph = sqlite_ann._new_graph(DIM)
        sqlite_ann._add(graph, np.arange(len(matrix)), matrix)
        for query in queries:
            found = graph.search(query, 5, threads=1)
            pairs = zip(found.keys, found.distances, strict=True)
            got = [("d", int(key)) for key, distance in pairs if 1 - distance >= 0.25]
            wrong += not like_exact(got, corpus, query)
    assert wrong == 0
