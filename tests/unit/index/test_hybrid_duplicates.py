"""A passage copied word for word into several files is one answer to a hybrid search: listed
once, at the best rank a copy has, so its copies cannot push other answers out of the first
ranks (npm's docs repeat an ERESOLVE paragraph in six files; its copies filled hybrid ranks
4-9). Both stores (PostgreSQL real), through `agent-ls search` with the real model, and the
rule on rankings."""

from __future__ import annotations

from pathlib import Path

import pytest

from actions.index.embeddings import LEXICAL_KEPT, dense_status, hybrid
from actions.index.store import Store
from tests.unit.index.test_cli_dense import index, search
from tests.unit.index.test_store import backend, store
from tests.unit.index.test_store_vectors import embed_pending, pending, ready

__all__ = ["backend", "store"]  # the fixtures, parametrized over the backends

COPIED = (
    "ERESOLVE: npm refuses to install when peer dependency versions conflict; the conflicting"
    " peer dependency is printed with the package that needs it."
)
COMMANDS = ("install", "install-test", "install-ci-test", "ci", "link")
ANSWER = (
    "legacy-peer-deps: ignore peer dependency conflicts entirely when installing, as npm 6 did."
)
OTHER = "strict-peer-deps: fail the install on any peer dependency conflict, even a resolvable one."
UNRELATED = "The cache lives in ~/.npm; npm cache verify checks its integrity."


def page(command: str) -> str:
    return f"# npm {command}\n\nRuns npm {command}.\n\n## Conflicts\n\n{COPIED}\n"


@pytest.mark.skipif(not dense_status().enabled, reason="needs the embeddings extra")
def test_a_copied_passage_is_listed_once_by_agent_ls_search(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    for command in COMMANDS:
        (tmp_path / f"npm-{command}.md").write_text(page(command))
    (tmp_path / "config.md").write_text(
        f"# Config\n\n## legacy-peer-deps\n\n{ANSWER}\n\n## strict-peer-deps\n\n{OTHER}\n"
    )
    assert index(tmp_path, **store_env)["embedded"] == 2 * len(COMMANDS) + 2
    query = "install ignoring peer dependency conflicts"
    bm25 = search(tmp_path, query, AGENT_LS_EMBEDDINGS="0", **store_env)
    assert [hit["content"] for hit in bm25].count(COPIED) == 1  # BM25 alone: once as well
    found = search(tmp_path, query, **store_env)
    contents = [hit["content"] for hit in found]
    assert len(found) == 3
    assert len(set(contents)) == 3  # three distinct answers
    assert COPIED in contents
    assert ANSWER in contents
    assert [hit["score"] for hit in found] == sorted((h["score"] for h in found), reverse=True)


TEXTS = {  # content -> its vector; the query's vector is (1, 0, 0)
    COPIED: (0.9, 0.1, 0.0),
    ANSWER: (0.8, 0.2, 0.0),
    OTHER: (0.7, 0.3, 0.0),
    UNRELATED: (0.0, 0.0, 1.0),
}


def test_both_stores_keep_the_copy_ranked_first_and_drop_the_others(store: Store) -> None:
    for number, command in enumerate(COMMANDS):
        path = f"npm-{command}.md"
        store.replace_chunks(ready(path, 1, f"h{number}"), [pending(path, 0, COPIED)])
    store.replace_chunks(
        ready("config.md", 3),
        [pending("config.md", n, text) for n, text in enumerate((ANSWER, OTHER, UNRELATED))],
    )
    embed_pending(store, TEXTS)
    query = "peer dependency conflicts"
    lexical = store.search(query, 3)
    assert [hit.chunk.content for hit in lexical].count(COPIED) == 1  # listed once
    found = store.search(query, 3, vector=(1.0, 0.0, 0.0))
    assert sorted(hit.chunk.content for hit in found) == sorted((COPIED, ANSWER, OTHER))
    (copy,) = [hit for hit in found if hit.chunk.content == COPIED]
    first_copy = next(hit for hit in store.search(query, 8) if hit.chunk.content == COPIED)
    assert copy.chunk.document == first_copy.chunk.document  # the copy BM25 ranks first


def test_the_rule_on_rankings() -> None:
    text = {"a1": "a", "a2": "a", "a3": "a", "b": "b", "c": "c", "x": "x", "y": "y"}
    lexical = [("a1", 9.0), ("a2", 9.0), ("b", 5.0), ("a3", 4.0), ("c", 3.0)]
    dense = [("a2", 0.9), ("x", 0.8), ("a3", 0.7), ("y", 0.6)]
    fused = hybrid(lexical, dense, 6, passage=text.__getitem__)
    keys = [key for key, _ in fused]
    assert keys[:LEXICAL_KEPT] == ["a1", "b", "c"]  # BM25's first three distinct passages
    assert sorted(keys[LEXICAL_KEPT:]) == ["x", "y"]  # then the vectors', no copy of a1
    assert [score for _, score in fused] == sorted((score for _, score in fused), reverse=True)
    plain = [key for key, _ in hybrid(lexical, dense, 6)]  # without passages: every key
    assert plain[:LEXICAL_KEPT] == ["a1", "a2", "b"]
    assert "a3" in plain
    assert hybrid(lexical, dense, 0, passage=text.__getitem__) == []
