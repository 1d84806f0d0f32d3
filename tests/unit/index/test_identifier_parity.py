"""A snake_case name is found by its whole word on PostgreSQL as on SQLite (issue 27, round
5): PostgreSQL's postings split words at `_` (as its parser did for the former tsvector), so
`join_options` lost its whole word `joinoptions` there and a passage repeating "join" and
"options" outranked the definition on PostgreSQL only (click's questions: MRR 0.781 against
SQLite's 0.841). Both stores (PostgreSQL real), through `agent-ls search` with no model, and
the same scores on both."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from actions.index.store import Store
from tests.unit.index.test_cli_dense import index, search
from tests.unit.index.test_store import backend, chunk, ready, store

__all__ = ["backend", "store"]  # the fixtures, parametrized over the backends

NO_MODEL = {"AGENT_LS_EMBEDDINGS": "0"}
API_SCORE, GUIDE_SCORE = 4.918795525, 3.707426857  # SQLite's, computed by FTS5
QUERY = "where is join_options defined"
DOCS = {
    "api.md": "The join_options helper formats a list of options for the help page.",
    "guide.md": "Options: join options with a comma. Options join options; join the options"
    " list, then print the options.",
    **{f"note{n}.md": f"Release note {n}: the printer prints pages faster." for n in range(4)},
}


def test_agent_ls_search_finds_the_definition_by_its_whole_name(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    for path, text in DOCS.items():
        (tmp_path / path).write_text(f"{text}\n")
    index(tmp_path, **NO_MODEL, **store_env)
    found = search(tmp_path, QUERY, **NO_MODEL, **store_env)
    assert [hit["path"] for hit in found][:2] == ["api.md", "guide.md"]


def test_both_stores_give_the_same_scores(store: Store) -> None:
    for path, text in DOCS.items():
        store.replace_chunks(ready(path, 1), [chunk(path, 0, text)])
    scores = {hit.chunk.document: hit.score for hit in store.search(QUERY, 2)}
    assert scores == pytest.approx({"api.md": API_SCORE, "guide.md": GUIDE_SCORE}, abs=1e-6)


def test_postings_of_the_former_words_are_derived_again_on_open(
    tmp_path: Path, pg_url: str
) -> None:
    """An index written with version 1 postings (no whole word for `join_options`) gets
    them again from its stored chunks when opened: no file is read."""
    for path, text in DOCS.items():
        (tmp_path / path).write_text(f"{text}\n")
    env = {**NO_MODEL, "AGENT_LS_INDEX_URL": pg_url}
    index(tmp_path, **env)
    with psycopg.connect(pg_url, autocommit=True) as conn:  # back to version 1's words
        conn.execute("DELETE FROM agent_ls.words WHERE word LIKE 'joinopt%'")
        conn.execute("UPDATE agent_ls.meta SET value = '1' WHERE key = 'postings_version'")
    found = search(tmp_path, QUERY, **env)
    assert [hit["path"] for hit in found][:2] == ["api.md", "guide.md"]
