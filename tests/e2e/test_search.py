"""Retrieval through a real server: agent/search, freshness, restarts, agent.reindex, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from server.protocol import CMD_REINDEX
from tests.e2e.search_support import running_server, search, status
from tests.pdf_docs import ROWS, corrupt_pdf, manual_pdf, table_markdown
from tests.unit.index.test_pdf import unprivileged

TABLE = "| error code | meaning | retry |\n|---|---|---|\n" + "".join(
    f"| E{i:03d} | condition number {i} | {'yes' if i % 2 else 'no'} |\n" for i in range(200)
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "errors.md").write_text(
        "# Reference\n\n## Error codes\n\nEvery failure the daemon reports.\n\n"
        + TABLE
        + "\n## Logging\n\nLogs rotate daily at midnight.\n"
    )
    (root / "app.py").write_text("def rotate_logs():\n    return 'midnight'\n")
    return root


async def test_search_returns_the_whole_table_found_by_its_summary(workspace: Path) -> None:
    async with running_server(workspace) as (client, _):
        results = await search(client, "failure daemon reports", k=3)
        table = results[0]
        assert table["type"] == "table"
        assert table["path"] == "docs/errors.md"
        assert table["content"] == TABLE.rstrip("\n")  # byte-identical, 200 rows, one chunk
        assert (table["startLine"], table["endLine"]) == (7, 208)
        assert table["headings"] == ["Reference", "Error codes"]
        assert "Every failure the daemon reports" in table["summary"]
        assert set(table) == {
            "path",
            "startLine",
            "endLine",
            "type",
            "headings",
            "content",
            "summary",
            "score",
        }
        with pytest.raises(JsonRpcInvalidParams):
            await search(client, "")


async def test_edits_and_deletes_are_seen_by_the_next_search(workspace: Path) -> None:
    async with running_server(workspace) as (client, events):
        await events.wait_for(events.indexed("docs/errors.md"))
        assert await search(client, "kumquat") == []
        (workspace / "docs" / "fruit.md").write_text("# Fruit\n\nThe kumquat is a small citrus.\n")
        await events.wait_for(events.indexed("docs/fruit.md"))
        (hit,) = await search(client, "kumquat")
        assert hit["content"] == "The kumquat is a small citrus."
        mark = events.mark()
        (workspace / "docs" / "fruit.md").write_text("# Fruit\n\nThe mango is tropical.\n")
        await events.wait_for(events.indexed("docs/fruit.md"), since=mark)
        # the old text is gone (with dense vectors the mango may still come up as a fruit)
        assert not [r for r in await search(client, "kumquat") if "kumquat" in r["content"]]
        assert (await search(client, "mango"))[0]["path"] == "docs/fruit.md"
        (workspace / "docs" / "fruit.md").rename(workspace / "docs" / "moved.md")
        await events.wait_for(events.indexed("docs/moved.md"))
        assert [r["path"] for r in await search(client, "mango")] == ["docs/moved.md"]
        (workspace / "docs" / "moved.md").unlink()
        await events.wait_for(events.removed("docs/moved.md"))
        assert not [r for r in await search(client, "mango") if r["path"] == "docs/moved.md"]


async def test_did_save_reindexes_without_the_watcher(workspace: Path) -> None:
    no_watcher = {"AGENT_LS_INDEX_WATCH": "0"}
    async with running_server(workspace, env=no_watcher) as (client, events):
        await events.wait_for(events.indexed("app.py"))
        assert (await status(client))["index"]["watching"] is False
        mark = events.mark()
        path = workspace / "app.py"
        path.write_text("def compute_tax(amount):\n    return amount * 0.2\n")
        client.text_document_did_save(
            types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=path.as_uri()))
        )
        await events.wait_for(events.indexed("app.py"), since=mark)
        (hit,) = await search(client, "compute tax", k=1)
        assert hit["headings"] == ["function compute_tax", "def compute_tax(amount)"]
        mark = events.mark()
        (workspace / "notes.md").write_text("Notes about otters.\n")
        path.unlink()
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Deleted),
                    types.FileEvent(
                        uri=(workspace / "notes.md").as_uri(), type=types.FileChangeType.Created
                    ),
                ]
            )
        )
        event = await events.wait_for(events.removed("app.py"), since=mark)
        assert event["indexed"] == ["notes.md"]
        assert await search(client, "compute tax") == []
        assert (await search(client, "otters"))[0]["path"] == "notes.md"


async def test_restart_rechunks_nothing_and_reindex_reports_progress(workspace: Path) -> None:
    async with running_server(workspace) as (client, events):
        await events.wait_for(events.indexed("docs/errors.md"))
    (workspace / "new.md").write_text("Fresh content about walruses.\n")
    async with running_server(workspace) as (client, events):
        first = await events.wait_for(events.indexed("new.md"))
        assert first["indexed"] == ["new.md"]  # errors.md and app.py were not re-chunked
        result = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=CMD_REINDEX, arguments=[])
        )
        assert result["indexed"] == 0
        assert result["unchanged"] == 3
        assert result["documents"]["ready"] == 3
        (reports,) = [  # the first build's bar is the other one
            bar for bar in client.progress_reports.values() if bar[0].title == "agent-ls: indexing"
        ]
        assert reports[0].kind == "begin"
        assert reports[-1].kind == "end"
        assert reports[-1].message == "3 documents ready"


async def test_bad_files_fail_with_reasons_and_the_server_stays_up(workspace: Path) -> None:
    (workspace / "fake.md").write_bytes(b"# Looks like markdown\n\0\x01\x02 binary body")
    with open(workspace / "huge.md", "wb") as handle:
        handle.truncate(200 * 2**20)  # 200 MB, sparse
    (workspace / "gone.md").symlink_to(workspace / "missing-target.md")
    (workspace / "latin.txt").write_bytes(b"na\xefve")
    async with running_server(workspace) as (client, events):
        await events.wait_for(events.summarized("docs/errors.md"))  # its table's summary: final
        index = (await status(client))["index"]
        assert index["documents"] == {"pending": 0, "chunked": 0, "ready": 2, "failed": 4}
        reasons = {failure["path"]: failure["reason"] for failure in index["failures"]}
        assert reasons == {
            "fake.md": "binary (NUL bytes)",
            "gone.md": "refused: 'gone.md' is a dangling symlink",
            "huge.md": f"too large ({200 * 2**20} bytes > {4 * 2**20} limit)",
            "latin.txt": "not UTF-8 text (byte 2)",
        }
        assert index["state"] == "ready"
        assert (await search(client, "midnight"))[0]["path"] in ("docs/errors.md", "app.py")


async def test_pdfs_and_unreadable_files_through_the_server(workspace: Path) -> None:
    manual_pdf(workspace / "docs" / "manual.pdf")
    corrupt_pdf(workspace / "docs" / "broken.pdf")
    (workspace / "locked.md").write_text("secret-ish")
    (workspace / "locked.md").chmod(0)
    async with running_server(workspace, prefix=tuple(unprivileged())) as (client, events):
        await events.wait_for(events.indexed("docs/manual.pdf"))
        index = (await status(client))["index"]
        reasons = {failure["path"]: failure["reason"] for failure in index["failures"]}
        assert reasons.pop("docs/broken.pdf").startswith("unreadable PDF (")
        assert reasons == {"locked.md": "unreadable (Permission denied)"}
        (table,) = await search(client, "spooler limits ceiling", k=1)
        assert table["content"] == table_markdown(ROWS)
        assert (table["path"], table["startPage"], table["endPage"]) == ("docs/manual.pdf", 1, 2)
        (workspace / "docs" / "broken.pdf").write_bytes(
            manual_pdf(workspace / "x.pdf").read_bytes()
        )
        await events.wait_for(events.indexed("docs/broken.pdf"))
        failures = (await status(client))["index"]["failures"]
        assert [failure["path"] for failure in failures] == ["locked.md"]
        # three files now hold one text: a search lists its passage once, the copy ranked
        # first (the path's own word picks the repaired file's)
        (hit,) = await search(client, "broken toner tray Friday", k=1)
        assert (hit["path"], hit["startPage"]) == ("docs/broken.pdf", 3)
        assert "startPage" not in (await search(client, "midnight"))[0]  # not a PDF
