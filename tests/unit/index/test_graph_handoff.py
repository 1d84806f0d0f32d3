"""`agent-ls index` returns before the vector graph is built (issue 27, item 7): a niced child
process builds it; a search meanwhile answers (exactly) and the status says the graph is
pending, or building and how far — also when another process builds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from actions.index.embeddings import dense_status
from actions.index.graph_lock import build_lock, report_progress
from tests.unit.index.test_cli_dense import KITCHEN, OPS, PARAPHRASE, TRAVEL, agent_ls, search

pytestmark = pytest.mark.skipif(
    not dense_status().enabled, reason="needs the embeddings extra (part of the test extra)"
)
ENV = {"AGENT_LS_INDEX_URL": "", "AGENT_LS_ANN_MIN": "1"}  # a graph even for 5 vectors


def workspace(root: Path) -> None:
    (root / "ops.md").write_text(OPS)
    (root / "kitchen.md").write_text(KITCHEN)
    (root / "travel.md").write_text(TRAVEL)


def index(root: Path, *flags: str) -> dict[str, object]:
    result = agent_ls("index", "--workspace", str(root), "--json", *flags, **ENV)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_index_returns_before_the_graph_and_search_answers_meanwhile(tmp_path: Path) -> None:
    workspace(tmp_path)
    built = index(tmp_path)
    assert built["embedded"] == 5  # the vectors are stored before it returns
    graph = built["embeddings"]["search"]  # type: ignore[index]
    assert graph["kind"] == "exact"
    assert graph.get("pending") or graph["building"]  # the child may have started already
    assert search(tmp_path, PARAPHRASE, **ENV)[0]["path"] == "ops.md"  # exact meanwhile
    waited = index(tmp_path, "--wait-graph")  # waits for the child's build, builds nothing
    assert waited["embeddings"]["search"] == {"kind": "hnsw", "vectors": 5, "building": False}
    folder = Path(str(built["location"])).parent
    assert len(list(folder.glob("index.sqlite3.vectors-*.usearch"))) == 1
    assert search(tmp_path, PARAPHRASE, **ENV)[0]["path"] == "ops.md"


def test_the_status_shows_a_build_another_process_runs(tmp_path: Path) -> None:
    workspace(tmp_path)
    first = index(tmp_path, "--no-embed")
    database = Path(str(first["location"]))
    with build_lock(database):  # as a child of an earlier `agent-ls index` holds it
        report_progress(database, 2048, 5000)
        built = index(tmp_path)
        assert built["embeddings"]["search"] == {  # type: ignore[index]
            "kind": "exact",
            "building": True,
            "progress": {"added": 2048, "total": 5000},
        }
        text = agent_ls("index", "--workspace", str(tmp_path), **ENV).stdout
        assert "nearest chunks: exact, graph building (2048/5000)" in text
    waited = index(tmp_path, "--wait-graph")
    assert waited["embeddings"]["search"]["kind"] == "hnsw"  # type: ignore[index]


def test_a_store_closes_while_another_process_builds_its_graph(tmp_path: Path) -> None:
    """The server's own build waits for the lock of a build running elsewhere; closing the
    store meanwhile (the server stopping) does not wait for the other process."""
    import threading

    from actions.index.model import Chunk, DocumentRecord
    from actions.index.sqlite_store import SqliteStore

    path = tmp_path / "index.sqlite3"
    store = SqliteStore(path, ann_min=1)
    vector = (1.0,) + (0.0,) * 383
    chunk = Chunk("a.md", 0, "text", "alpha", "alpha", embedding_status="ready", embedding=vector)
    store.replace_chunks(DocumentRecord("a.md", "ready", "h", chunks=1), [chunk])
    with build_lock(path):  # another process builds the graph and never finishes
        assert store.search("", 1, vector=vector)[0].chunk.document == "a.md"  # exact
        assert store.vector_search()["building"] is True  # this process's build waits
        closing = threading.Thread(target=store.close)
        closing.start()
        closing.join(60)  # a bound, not a measure: without the stop check it never returns
        assert not closing.is_alive()
