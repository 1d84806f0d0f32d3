"""Hybrid search through a real server (the `embeddings` extra's MiniLM model): chunks are
searchable by BM25 at once and embedded in the background (`agent/indexUpdated` with
`embedded` when it caught up); a paraphrase with no word of its answer is then found by
`agent/search`; `agent/status` shows dense search on, or off with how to turn it on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from actions.index.embeddings import dense_status
from tests.e2e.search_support import running_server, search, status
from tests.unit.index.test_cli_dense import KITCHEN, OPS, PARAPHRASE, TRAVEL

pytestmark = pytest.mark.skipif(
    not dense_status().enabled, reason="needs the embeddings extra (part of the test extra)"
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "ops.md").write_text(OPS)
    (root / "kitchen.md").write_text(KITCHEN)
    (root / "travel.md").write_text(TRAVEL)
    return root


def embedded(item: dict[str, Any]) -> bool:
    return bool(item.get("embedded"))


async def test_background_embedding_makes_paraphrases_findable(workspace: Path) -> None:
    async with running_server(workspace) as (client, events):
        done = await events.wait_for(embedded)
        assert (done["embedded"], done["embeddingFailed"]) == (5, 0)
        (hit, *_) = await search(client, PARAPHRASE, k=3)
        assert (hit["path"], hit["headings"]) == ("ops.md", ["Operations", "Certificates"])
        assert hit["content"].startswith("Our TLS certificates expire every ninety days.")
        index = (await status(client))["index"]
        assert index["dense"] is True
        dense = index["embeddings"]
        assert dense["enabled"] is True
        assert dense["model"] == "all-MiniLM-L6-v2-onnx-int8"
        assert (dense["ready"], dense["pending"], dense["failed"]) == (5, 0, 0)
        assert dense["search"] == {"kind": "exact", "building": False}  # 5 vectors: no graph

        mark = events.mark()
        (workspace / "kitchen.md").write_text(KITCHEN.replace("bread", "sourdough loaf"))
        await events.wait_for(events.indexed("kitchen.md"), since=mark)
        again = await events.wait_for(embedded, since=mark)
        assert again["embedded"] == 1  # only the chunk that changed
        (hit, *_) = await search(client, "what heat should the oven be", k=3)
        assert hit["path"] == "kitchen.md"
        assert "sourdough loaf" in hit["content"]


async def test_with_dense_search_off_status_says_how_to_turn_it_on(workspace: Path) -> None:
    off = {"AGENT_LS_EMBEDDINGS": "0"}
    async with running_server(workspace, env=off) as (client, events):
        await events.wait_for(events.indexed("ops.md"))
        index = (await status(client))["index"]
        assert index["dense"] is False
        assert index["embeddings"] == {
            "enabled": False,
            "reason": "turned off by AGENT_LS_EMBEDDINGS=0",
            "hint": "unset AGENT_LS_EMBEDDINGS",
        }
        hits = await search(client, PARAPHRASE, k=3)
        assert not any("certbot" in hit["content"] for hit in hits)  # BM25 alone misses it
        assert (await search(client, "certbot renew"))[0]["path"] == "ops.md"


async def test_a_corrupted_model_file_shows_why_in_status_and_bm25_answers(
    workspace: Path, tmp_path: Path
) -> None:
    from actions.index.embeddings import MODEL_ENV, model_files
    from actions.index.pinned import MODEL_PIN, sha256_of
    from tests.unit.index.test_pinned import corrupted_copy

    found = model_files()
    assert not isinstance(found, str)
    (tmp_path / "model").mkdir()
    bad = corrupted_copy(found[0], tmp_path / "model", offset=MODEL_PIN.size // 3)
    async with running_server(workspace, env={MODEL_ENV: str(bad)}) as (client, events):
        await events.wait_for(events.indexed("ops.md"))
        index = (await status(client))["index"]
        assert index["dense"] is False
        assert index["embeddings"]["enabled"] is False
        assert index["embeddings"]["reason"] == (
            f"embedding model file {bad} sha256 mismatch: "
            f"expected {MODEL_PIN.sha256}, got {sha256_of(bad)}"
        )
        assert index["embeddings"]["hint"].startswith(f"unset {MODEL_ENV}")
        assert (await search(client, "certbot renew"))[0]["path"] == "ops.md"
