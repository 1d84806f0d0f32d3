"""The team index through a real server: `indexUrl` = a real PostgreSQL + pgvector server."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.search_support import running_server, search, status


async def test_a_server_on_the_postgresql_index_stays_fresh_and_reports_it(
    pg_url: str, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "guide.md").write_text("# Ports\n\n| port | daemon |\n|---|---|\n| 5432 | db |\n")
    async with running_server(workspace, {"indexUrl": pg_url}) as (client, events):
        await events.wait_for(events.indexed("guide.md"))
        (table,) = await search(client, "daemon ports", k=1)
        assert (table["path"], table["type"]) == ("guide.md", "table")
        assert table["content"] == "| port | daemon |\n|---|---|\n| 5432 | db |"
        (workspace / "fruit.md").write_text("# Fruit\n\nThe kumquat is a small citrus.\n")
        await events.wait_for(events.indexed("fruit.md"))
        assert [hit["path"] for hit in await search(client, "kumquat")] == ["fruit.md"]
        (workspace / "fruit.md").unlink()
        await events.wait_for(events.removed("fruit.md"))
        assert await search(client, "kumquat") == []
        index = (await status(client))["index"]
        assert index["backend"] == "postgresql"
        assert index["documents"]["ready"] == 1
    async with running_server(workspace, {"indexUrl": pg_url}) as (client, events):
        assert (await search(client, "daemon ports", k=1))[0]["path"] == "guide.md"
