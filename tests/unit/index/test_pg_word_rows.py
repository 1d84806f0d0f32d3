"""The PostgreSQL index keeps a ``words`` row only for a word some chunk holds (issue #27):
a word whose last chunk is replaced or removed is deleted, so a workspace whose vocabulary
churns (files rewritten, renamed, removed) does not grow its ``words`` without bound. Other
workspaces writing at the same time keep their own words and counts, and a store that cached
a deleted word's number still finds the word when it is written again (under a new number).
Real PostgreSQL; the user's path is ``agent-ls index`` run again after files change."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path

import psycopg

from actions.index.pg_store import PgStore
from actions.index.store import workspace_key
from tests.unit.index.test_cli_identifiers import agent_ls
from tests.unit.index.test_store import chunk, ready


def _rows(pg_url: str, key: str) -> dict[str, int]:
    """Every ``words`` row of the workspace ``key``: word -> the chunk count kept."""
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT w.word, w.chunks FROM agent_ls.words w JOIN agent_ls.workspaces s"
            " ON s.id = w.workspace WHERE s.key = %s",
            (key,),
        ).fetchall()
    return dict(rows)


def _held(pg_url: str, key: str) -> Counter[str]:
    """How many of the workspace's chunks hold each word (from the chunks' rows of words)."""
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT w.word FROM agent_ls.chunk_words t CROSS JOIN unnest(t.words) AS u(id)"
            " JOIN agent_ls.words w ON w.id = u.id JOIN agent_ls.workspaces s"
            " ON s.id = t.workspace WHERE s.key = %s",
            (key,),
        ).fetchall()
    return Counter(word for (word,) in rows)


def test_agent_ls_index_again_after_files_change_keeps_only_live_words(
    tmp_path: Path, pg_url: str
) -> None:
    """Files rewritten with other words, one removed, then ``agent-ls index`` again: the
    workspace's words are those of its chunks now, each counted once per chunk."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for number in range(4):
        (workspace / f"notes{number}.md").write_text(
            f"# Notes {number}\n\nThe quarterly zebrafish{number} census counts tadpoles.\n"
        )
    env = {"AGENT_LS_INDEX_URL": pg_url}
    built = agent_ls("index", "--workspace", str(workspace), "--json", **env)
    assert built.returncode == 0, built.stderr
    key = workspace_key(workspace)
    assert "zebrafish0" in _rows(pg_url, key)
    for number in range(3):
        (workspace / f"notes{number}.md").write_text(
            f"# Notes {number}\n\nThe weekly heron{number} survey lists herons.\n"
        )
    (workspace / "notes3.md").unlink()
    again = agent_ls("index", "--workspace", str(workspace), "--json", **env)
    assert again.returncode == 0, again.stderr
    rows = _rows(pg_url, key)
    assert not [word for word in rows if word.startswith(("zebrafish", "tadpol", "quarter"))]
    assert rows == dict(_held(pg_url, key))  # no row at a count of 0
    found = agent_ls("search", "--workspace", str(workspace), "--json", "--", "heron1", **env)
    assert found.returncode == 0, found.stderr
    assert [hit["path"] for hit in json.loads(found.stdout)] == ["notes1.md"]


def test_writers_of_two_workspaces_at_once_keep_their_own_words(
    tmp_path: Path, pg_url: str
) -> None:
    """Two workspaces sharing words, each rewriting its documents with other words in its
    own thread: each ends with exactly the rows and counts of its live chunks, and a word
    one of them dropped is still the other's."""
    keys = [workspace_key(tmp_path / name) for name in ("left", "right")]
    stores = [PgStore(pg_url, key) for key in keys]
    errors: list[BaseException] = []

    def churn(store: PgStore, side: int) -> None:
        try:
            for round_ in range(12):
                text = f"shared apple word{round_} side{side}x{round_} doc"
                store.replace_many(
                    [
                        (ready(f"d{n}.md", 1, str(round_)), [chunk(f"d{n}.md", 0, f"{text}{n}")])
                        for n in range(3)
                    ]
                )
            if side == 0:
                for n in range(3):
                    store.remove_document(f"d{n}.md")
        except BaseException as error:  # reported by the test below
            errors.append(error)

    threads = [threading.Thread(target=churn, args=(s, i)) for i, s in enumerate(stores)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert _rows(pg_url, keys[0]) == {}
        right = _rows(pg_url, keys[1])
        assert right == dict(_held(pg_url, keys[1]))
        assert (right["apple"], right["word11"]) == (3, 3)
        assert "word10" not in right
        assert [hit.chunk.document for hit in stores[1].search("apple word11", 5)] == [
            "d0.md",
            "d1.md",
            "d2.md",
        ]
    finally:
        for store in stores:
            store.close()


def test_a_word_deleted_then_written_again_is_found_by_a_store_that_cached_it(
    tmp_path: Path, pg_url: str
) -> None:
    """An index of 1,000 chunks or more caches its words' numbers and counts between
    queries. Another store (another agent-ls on the same team index) removes a word's last
    chunk (its row deleted) and writes it again (a new number): the first store's next
    query still finds it."""
    key = workspace_key(tmp_path)
    reader, writer = PgStore(pg_url, key), PgStore(pg_url, key)
    try:
        filler = [
            (
                ready(f"f{n}.md", 50),
                [chunk(f"f{n}.md", p, f"filler text {n} {p}") for p in range(50)],
            )
            for n in range(20)
        ]
        writer.replace_many(
            [*filler, (ready("fruit.md", 1), [chunk("fruit.md", 0, "kumquat jam")])]
        )
        assert [hit.chunk.document for hit in reader.search("kumquat", 5)] == ["fruit.md"]
        writer.replace_chunks(ready("fruit.md", 1, "h2"), [chunk("fruit.md", 0, "plum jam")])
        assert "kumquat" not in _rows(pg_url, key)
        writer.replace_chunks(ready("tree.md", 1), [chunk("tree.md", 0, "a kumquat tree")])
        assert [hit.chunk.document for hit in reader.search("kumquat", 5)] == ["tree.md"]
        assert [hit.chunk.document for hit in reader.search("kumquat tree", 5)] == ["tree.md"]
    finally:
        reader.close()
        writer.close()


def test_words_a_former_agent_ls_left_at_zero_are_deleted_on_open(
    tmp_path: Path, pg_url: str
) -> None:
    """An index written before kept words at a count of 0: opening it deletes them, once."""
    key = workspace_key(tmp_path)
    store = PgStore(pg_url, key)
    store.replace_chunks(ready("a.md", 1), [chunk("a.md", 0, "apple orchard")])
    store.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:  # as the former writes left it
        conn.execute(
            "INSERT INTO agent_ls.words (workspace, word, chunks) SELECT id, 'quince', 0"
            " FROM agent_ls.workspaces WHERE key = %s",
            (key,),
        )
        conn.execute("DELETE FROM agent_ls.meta WHERE key = 'words_pruned'")
    assert _rows(pg_url, key)["quince"] == 0
    store = PgStore(pg_url, key)
    try:
        assert "quince" not in _rows(pg_url, key)
        assert _rows(pg_url, key) == dict(_held(pg_url, key))
        assert [hit.chunk.document for hit in store.search("apple", 5)] == ["a.md"]
    finally:
        store.close()
