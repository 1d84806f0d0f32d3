"""The store contract, run against every backend (a new backend adds itself to BACKENDS)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from actions.index.model import Chunk, DocumentRecord
from actions.index.pg_store import PgStore
from actions.index.sqlite_store import SqliteStore
from actions.index.store import Store, StoreError, default_index_dir, open_store, workspace_key

# A backend opens the store of a test from its temp dir (the same dir: the same index) and
# the request (for server fixtures). PostgreSQL: one server, a workspace key per test.
BACKENDS: dict[str, Callable[[Path, pytest.FixtureRequest], Store]] = {
    "sqlite": lambda tmp, _: SqliteStore(tmp / "index" / "index.sqlite3"),
    "postgresql": lambda tmp, request: PgStore(
        request.getfixturevalue("pg_url"), workspace_key(tmp)
    ),
}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Store]:
    """Opens the test's store (each call a new connection to the same index)."""
    name = str(request.param)
    return lambda: BACKENDS[name](tmp_path, request)


@pytest.fixture
def store(backend: Callable[[], Store]) -> Iterator[Store]:
    opened = backend()
    yield opened
    opened.close()


def chunk(path: str, position: int, content: str, **fields: object) -> Chunk:
    summary = str(fields.pop("summary", ""))
    small = summary or content
    headings = tuple(fields.pop("headings", ()))  # type: ignore[call-overload]
    return Chunk(
        document=path,
        position=position,
        type=fields.pop("type", "text"),  # type: ignore[arg-type]
        content=content,
        indexed_text=f"{path}\n{' > '.join(headings)}\n{small}",
        summary=summary,
        headings=headings,
        start_line=position * 10 + 1,
        end_line=position * 10 + 5,
    )


def ready(path: str, count: int, content_hash: str = "h") -> DocumentRecord:
    return DocumentRecord(path, "ready", content_hash, 10, 1, chunks=count)


def test_search_returns_the_original_and_ranks_matches(store: Store) -> None:
    store.replace_chunks(
        ready("docs/a.md", 2),
        [
            chunk("docs/a.md", 0, "The frobnicator spins widgets quickly."),
            chunk("docs/a.md", 1, "Unrelated words about gardening."),
        ],
    )
    store.replace_chunks(ready("b.md", 1), [chunk("b.md", 0, "A widget is small.")])
    hits = store.search("frobnicator widgets", 5)
    assert [hit.chunk.document for hit in hits][:2] == ["docs/a.md", "b.md"]
    assert hits[0].chunk.content == "The frobnicator spins widgets quickly."
    assert hits[0].chunk.start_line == 1
    assert hits[0].score > hits[1].score


def test_a_table_is_found_by_its_summary_and_returned_whole(store: Store) -> None:
    table = "| port | service |\n|---|---|\n| 5432 | db |"
    store.replace_chunks(
        ready("t.md", 1),
        [chunk("t.md", 0, table, type="table", summary="Network ports used by each daemon")],
    )
    (hit,) = store.search("which daemon ports", 3)
    assert hit.chunk.content == table
    assert hit.chunk.type == "table"
    assert hit.chunk.summary == "Network ports used by each daemon"


def test_headings_and_path_are_searchable(store: Store) -> None:
    store.replace_chunks(
        ready("guide/install.md", 1),
        [chunk("guide/install.md", 0, "Run the script.", headings=("Setup", "Debian"))],
    )
    assert store.search("debian", 1)[0].chunk.headings == ("Setup", "Debian")
    assert store.search("install", 1)[0].chunk.document == "guide/install.md"


def test_replace_and_remove_leave_no_stale_chunk(store: Store) -> None:
    store.replace_chunks(ready("a.md", 1), [chunk("a.md", 0, "old apple text")])
    store.replace_chunks(ready("a.md", 1, "h2"), [chunk("a.md", 0, "new banana text")])
    assert store.search("apple", 5) == []
    assert [hit.chunk.content for hit in store.search("banana", 5)] == ["new banana text"]
    assert store.documents()["a.md"].content_hash == "h2"
    store.remove_document("a.md")
    assert store.search("banana", 5) == []
    assert "a.md" not in store.documents()
    store.remove_document("never-there.md")


def test_statuses_are_counted_and_failures_keep_their_reason(store: Store) -> None:
    store.put_document(DocumentRecord("p.md", "pending"))
    store.replace_chunks(DocumentRecord("f.md", "failed", reason="binary (NUL bytes)"), [])
    store.replace_chunks(ready("r.md", 1), [chunk("r.md", 0, "ready text")])
    assert store.counts() == {"pending": 1, "chunked": 0, "ready": 1, "failed": 1}
    assert store.documents()["f.md"].reason == "binary (NUL bytes)"
    assert store.chunk_count() == 1
    assert [c.content for c in store.chunks_of("r.md")] == ["ready text"]


def test_queries_with_syntax_characters_are_words(store: Store) -> None:
    store.replace_chunks(ready("q.md", 1), [chunk("q.md", 0, 'say "NEAR" AND (x) OR y*')])
    for query in ['"', "NEAR(", "AND OR NOT", "x*", "col:on", "", "   "]:
        store.search(query, 3)  # never a syntax error
    assert store.search("near", 3)[0].chunk.document == "q.md"


def test_the_index_survives_reopening(backend: Callable[[], Store]) -> None:
    first = backend()
    first.replace_chunks(ready("a.md", 1), [chunk("a.md", 0, "persistent kiwi")])
    first.close()
    second = backend()
    assert second.search("kiwi", 1)[0].chunk.content == "persistent kiwi"
    assert second.documents()["a.md"].chunks == 1
    second.close()


def test_the_embedded_index_lives_outside_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("AGENT_LS_INDEX_DIR", raising=False)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    location = default_index_dir(workspace)
    assert location.is_relative_to(tmp_path / "cache" / "agent-ls" / "index")
    with pytest.raises(StoreError, match="unsupported index URL"):
        open_store(workspace, "mysql://x")
