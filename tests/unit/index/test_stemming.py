"""English stemming as both stores rank with it (issue #27): each word is indexed as written
and by its Snowball stem, so a question finds the other forms of its words (``retried`` the
passage saying ``retries``) while the exact form still counts more than a relative; an index
written with other words is re-cut from its stored chunks when opened."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

from actions.index.pg_store import PgStore
from actions.index.sqlite_store import SCHEMA_VERSION, SqliteStore
from actions.index.store import Store, workspace_key
from tests.unit.index.test_cli_identifiers import agent_ls
from tests.unit.index.test_store import backend, chunk, ready, store

__all__ = ["backend", "store"]  # the fixtures, parametrized over the backends

ANSWER = "The client retries a failed upload three times, waiting longer before each attempt."
DECOY = "A failed upload is logged."


def _workspace(root: Path) -> None:
    docs = root / "docs"
    docs.mkdir()
    for number in range(6):
        (docs / f"log-{number}.md").write_text(f"# Log {number}\n\n{DECOY}\n", encoding="utf-8")
    (docs / "transfer.md").write_text(f"# Transfers\n\n{ANSWER}\n", encoding="utf-8")


def test_a_question_finds_another_form_of_its_word(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    """``retried`` meets ``retries``: without stemming the answer shares only ``failed upload``
    with the question, as every shorter decoy does, and ranks below them all."""
    _workspace(tmp_path)
    built = agent_ls("index", "--workspace", str(tmp_path), "--json", **store_env)
    assert built.returncode == 0, built.stderr
    query = "how often is a failed upload retried"
    result = agent_ls(
        "search", "--workspace", str(tmp_path), "--k", "3", "--json", "--", query, **store_env
    )
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)
    assert [hit["path"] for hit in hits][:1] == ["docs/transfer.md"]
    assert ANSWER in hits[0]["content"]


def test_the_exact_word_ranks_above_its_relatives(store: Store) -> None:
    store.replace_chunks(ready("a.md", 1), [chunk("a.md", 0, "How the server is configured.")])
    store.replace_chunks(ready("b.md", 1), [chunk("b.md", 0, "The server configuration.")])
    store.replace_chunks(ready("c.md", 1), [chunk("c.md", 0, "Nothing related here at all.")])
    hits = store.search("server configuration", 5)
    assert [hit.chunk.document for hit in hits] == ["b.md", "a.md"]
    assert {hit.chunk.document for hit in store.search("configuring", 5)} == {"a.md", "b.md"}


def test_an_index_of_the_former_words_is_recut_on_open(tmp_path: Path) -> None:
    """A version 5 index (the light plural stemmer: ``retry`` for ``retries``) gets its FTS
    rows again from its chunks: the new words are found, no file read, the vector kept."""
    path = tmp_path / "index.sqlite3"
    written = SqliteStore(path)
    vector = (0.6, 0.8, 0.0)
    written.replace_chunks(
        ready("docs/transfer.md", 1),
        [replace(chunk("docs/transfer.md", 0, ANSWER), embedding=vector, embedding_status="ready")],
    )
    written.close()
    db = sqlite3.connect(path, isolation_level=None)  # the words version 5 wrote
    db.execute("DELETE FROM chunks_fts")
    db.execute(
        "INSERT INTO chunks_fts (rowid, head, small, body) SELECT id, 'doc transfer md', ?, ''"
        " FROM chunks",
        ("the client retry a failed upload three time waiting longer before each attempt",),
    )
    db.execute("PRAGMA user_version=5")
    db.close()

    reopened = SqliteStore(path)
    try:
        (hit,) = reopened.search("retried", 5)
        assert hit.chunk.content == ANSWER
        assert reopened.embedding_counts()["ready"] == 1
        check = sqlite3.connect(path)
        assert check.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        check.close()
    finally:
        reopened.close()


def test_a_postgresql_index_of_the_former_words_is_recut_on_connect(
    tmp_path: Path, pg_url: str
) -> None:
    """The team index records the words' version: a database written by the former words
    (no version recorded) gets every chunk's words again from its stored text."""
    import psycopg

    written = PgStore(pg_url, workspace_key(tmp_path))
    written.replace_chunks(ready("docs/transfer.md", 1), [chunk("docs/transfer.md", 0, ANSWER)])
    written.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:  # the words of the former version
        conn.execute("UPDATE agent_ls.words SET word = 'former' || word")
        conn.execute("DELETE FROM agent_ls.meta WHERE key = 'terms_version'")
    reopened = PgStore(pg_url, workspace_key(tmp_path))
    try:
        (hit,) = reopened.search("retried", 5)
        assert hit.chunk.content == ANSWER
    finally:
        reopened.close()
