"""A question's stop words count at a small weight among BM25's first candidates (issue 27,
round 5): "where is the cache on Windows" is answered by the passage saying "on Posix ...
on Windows", which the content words alone ranked below a shorter one holding `cache` and
`windows` (npm's "where does npm keep its cache on Linux and on Windows", 3rd for BM25, 1st
for plain FTS5). Both stores (PostgreSQL real) through `agent-ls search` with no model, the
same scores on both, and the rule's parts."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from actions.index.stop_words import STOP_WEIGHT, Candidate, Corpus, rescored, stop_terms
from actions.index.store import Store
from tests.unit.index.test_cli_dense import index, search
from tests.unit.index.test_store import backend, chunk, ready, store

__all__ = ["backend", "store"]  # the fixtures, parametrized over the backends

NO_MODEL = {"AGENT_LS_EMBEDDINGS": "0"}
QUERY = "where is the cache on Windows"
DOCS = {
    "answer.md": "The cache is kept in ~/.npm on Posix and in %LocalAppData%/npm-cache on Windows.",
    "other.md": "Windows: the cache folder keeps packages for offline installs.",
    **{f"note{n}.md": f"Release note {n}: the printer prints pages faster." for n in range(6)},
}


def test_agent_ls_search_ranks_the_answer_holding_the_stop_words_first(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    for path, text in DOCS.items():
        (tmp_path / path).write_text(f"{text}\n")
    assert index(tmp_path, **NO_MODEL, **store_env)["chunks"] == len(DOCS)
    found = search(tmp_path, QUERY, **NO_MODEL, **store_env)
    assert [hit["path"] for hit in found] == ["answer.md", "other.md"]


def test_both_stores_give_the_same_scores(store: Store) -> None:
    for path, text in DOCS.items():
        store.replace_chunks(ready(path, 1), [chunk(path, 0, text)])
    scores = {hit.chunk.document: hit.score for hit in store.search(QUERY, 5)}
    assert scores == pytest.approx({"answer.md": 4.925085410, "other.md": 3.870021250}, abs=1e-6)


def test_the_stop_words_of_a_query() -> None:
    assert stop_terms("where is the cache on Windows") == [
        "where", "where0", "is", "is0", "the", "the0", "on", "on0",
    ]  # fmt: skip
    assert stop_terms("the of a") == []  # only stop words: query_terms scores them in full
    assert stop_terms("cache windows") == []


def test_the_rule_on_candidates() -> None:
    corpus = Corpus(total=10, average=4.0, frequencies={"on": 2, "the": 9})
    plain = Candidate("plain", 5.0, ("", "cache windows", ""))
    spoken = Candidate("spoken", 4.9, ("", "cache on windows", ""))
    ranked = rescored([plain, spoken], ["on", "the"], corpus)
    assert [key for key, _ in ranked] == ["spoken", "plain"]
    assert ranked[1] == ("plain", 5.0)
    idf = math.log((10 - 2 + 0.5) / (2 + 0.5))  # `the`, in half the chunks or more: none
    tf_part = 1 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 3 / 4.0))
    assert ranked[0][1] == pytest.approx(4.9 + STOP_WEIGHT * idf * tf_part)
    past = Candidate("past", 1.0, ())  # no words (past STOP_DEPTH, or gone): unchanged
    assert rescored([past], ["on"], corpus) == [("past", 1.0)]
    assert rescored([plain], [], corpus) == [("plain", 5.0)]
