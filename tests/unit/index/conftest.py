"""Fixtures shared by the index tests."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["sqlite", "postgresql"])
def store_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """The environment selecting each store: the embedded SQLite index, then PostgreSQL."""
    if request.param == "sqlite":
        return {"AGENT_LS_INDEX_URL": ""}
    return {"AGENT_LS_INDEX_URL": str(request.getfixturevalue("pg_url"))}
