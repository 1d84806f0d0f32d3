"""The index lifecycle around provider summaries (issue 14), through real processes.

- a slow provider never holds the index: while the summary of a table is stalled (the fake
  LLM holds the request until the test releases it), a saved file is indexed and searchable;
- a file deleted while it is being indexed ends `failed` "deleted while being indexed", in
  `agent-ls serve` and in `agent-ls index`, and the rest is indexed;
- `indexSummaries` / `--no-summaries` / `AGENT_LS_INDEX_SUMMARIES=0` ask no provider, and
  `agent/status`, `agent-ls index --json` and `agent-ls doctor` say who writes the summaries.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import client_capabilities, make_test_lsp_client

from server.index_summaries import SUMMARIES_OFF
from server.protocol import AGENT_INDEX_UPDATED
from tests.e2e.conftest import settings_for
from tests.e2e.search_support import IndexEvents, running_server, search, status
from tests.e2e.test_search_summaries import (
    ASKED,
    DOC,
    SENTENCE,
    TABLE,
    summary_requests,
    workspace,
)
from tests.fakellm import FakeLLM

DELETED = "deleted while being indexed"
HELD = {"rules": [{"match": ASKED, "reply": {"content": SENTENCE, "hold": "summary"}}]}


async def summary_asked(llm: FakeLLM) -> None:
    """Wait (on the fake LLM's request log, no sleep) until a summary was asked for."""

    def wait() -> None:
        seen = 1
        while not summary_requests(llm):
            seen = len(llm.wait_for_requests(seen, timeout=30)) + 1

    await asyncio.to_thread(wait)


def provider_env(llm: FakeLLM, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "AGENT_LS_PROVIDER": "openai",
        "AGENT_LS_BASE_URL": llm.base_url_openai,
        "AGENT_LS_MODEL": "fake",
        **extra,
    }


async def test_shutdown_closes_the_index_before_the_server_answers(tmp_path: Path) -> None:
    """`shutdown` closes every folder's state: the index stops and its store is closed (SQLite
    folds its write-ahead log back and removes it) before the answer, not at some later exit."""
    root = workspace(tmp_path)
    cache = tmp_path / "cache"
    client = make_test_lsp_client()
    events = IndexEvents()

    async def on_index_updated(params: Any) -> None:
        await events.add(params)

    client.feature(AGENT_INDEX_UPDATED)(on_index_updated)
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "AGENT_LS_INDEX_SUMMARIES": "0"}
    await client.start_io(sys.executable, "-m", "server", env=env)

    def logs() -> list[str]:
        return [path.name for path in cache.rglob("index.sqlite3-wal")]

    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            )
        )
        await events.wait_for(events.indexed("docs/ops.md"))
        assert logs() == ["index.sqlite3-wal"]  # the index is open

        await client.shutdown_async(None)

        assert logs() == []
    finally:
        client.exit(None)
        await client.stop()


async def test_a_stalled_summary_never_holds_up_a_saved_file(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    with FakeLLM(HELD) as llm:
        async with running_server(root, settings_for(llm)) as (client, events):
            await summary_asked(llm)  # the provider now stalls on the table of docs/ops.md
            first = await events.wait_for(events.indexed("docs/ops.md"))
            assert "summarized" not in first or not first["summarized"]
            runbook = root / "runbook.md"
            runbook.write_text("The hangar key hangs in drawer seven.\n")
            since = events.mark()
            client.text_document_did_save(
                types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=runbook.as_uri()))
            )
            await events.wait_for(events.indexed("runbook.md"), since)
            (hit,) = await search(client, "drawer seven", k=1)
            assert hit["path"] == "runbook.md"
            report = (await status(client))["index"]
            assert report["documents"]["chunked"] == 1  # ops.md: still waiting for its summary
            assert report["summaries"]["source"] == "provider"
            (table,) = await search(client, "hangar closed", k=1)  # found by the fallback
            assert (table["content"], table["summary"] == SENTENCE) == (TABLE, False)
            since = events.mark()
            llm.release("summary")
            await events.wait_for(events.summarized("docs/ops.md"), since)
            (hit,) = await search(client, "zeppelin slots", k=1)
            assert (hit["content"], hit["summary"]) == (TABLE, SENTENCE)
            report = (await status(client))["index"]
            assert report["documents"] == {"pending": 0, "chunked": 0, "ready": 3, "failed": 0}
            assert report["summaries"]["asked"] == 1


async def test_a_file_deleted_while_indexed_fails_and_the_server_goes_on(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    with FakeLLM(HELD) as llm:
        env = {"AGENT_LS_INDEX_WATCH": "0"}  # no watcher to see the deletion first
        async with running_server(root, settings_for(llm), env=env) as (client, events):
            await summary_asked(llm)
            (root / "docs" / "ops.md").unlink()
            llm.release("summary")
            # (the test client turns the {path: reason} map's keys into field names)
            event = await events.wait_for(lambda item: DELETED in item["failed"].values())
            assert list(event["failed"].values()) == [DELETED]
            report = (await status(client))["index"]
            assert report["documents"] == {"pending": 0, "chunked": 0, "ready": 1, "failed": 1}
            assert report["failures"] == [{"path": "docs/ops.md", "reason": DELETED}]
            # none of the deleted file's chunks is served (dense search may still offer
            # notes.md's "airships" for "zeppelin": 0.38 similar once its vector is in)
            hits = await search(client, "zeppelin slots")
            assert [hit["path"] for hit in hits if hit["path"] != "notes.md"] == []
            (hit,) = await search(client, "airships", k=1)  # the rest is indexed and served
            assert hit["path"] == "notes.md"
            result = await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command="agent.reindex", arguments=[{}])
            )
            assert result["removed"] == 1  # the next build forgets it


def test_agent_ls_index_reports_a_file_deleted_while_indexed(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    with FakeLLM(HELD) as llm:
        command = [sys.executable, "-m", "server", "index", "--json", "--workspace", str(root)]
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=provider_env(llm),
        )
        try:
            asyncio.run(summary_asked(llm))
            (root / "docs" / "ops.md").unlink()
            llm.release("summary")
            out, err = process.communicate(timeout=120)
        finally:
            process.kill()
    assert process.returncode == 0, err
    result = json.loads(out)
    assert result["failures"] == [{"path": "docs/ops.md", "reason": DELETED}]
    assert result["documents"] == {"pending": 0, "chunked": 0, "ready": 1, "failed": 1}


async def test_summaries_turned_off_in_the_settings_ask_no_provider(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    with FakeLLM({"rules": [{"match": ASKED, "reply": SENTENCE}], "default": "ok"}) as llm:
        settings = {**settings_for(llm), "indexSummaries": False}
        async with running_server(root, settings) as (client, events):
            await events.wait_for(events.indexed("docs/ops.md"))
            (hit,) = await search(client, "hangar closed", k=1)
            assert hit["content"] == TABLE
            assert hit["summary"].startswith("Table: When the hangar may be closed.")
            report = (await status(client))["index"]
            assert report["summaries"] == {"source": "fallback", "reason": SUMMARIES_OFF}
            assert report["documents"]["ready"] == 2
        assert summary_requests(llm) == []


def run_cli(*args: str, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "server", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.stdout, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_the_cli_switches_summaries_off_and_says_so(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    with FakeLLM({"rules": [{"match": ASKED, "reply": SENTENCE}], "default": "ok"}) as llm:
        where = ("--workspace", str(root))
        flagged = run_cli("index", "--no-summaries", *where, env=provider_env(llm))
        assert flagged["summaries"] == {
            "source": "fallback",
            "reason": "turned off by --no-summaries",
        }
        (root / "docs" / "ops.md").write_text(DOC + "\nA new paragraph.\n")
        off = provider_env(llm, AGENT_LS_INDEX_SUMMARIES="0")
        assert run_cli("index", *where, env=off)["summaries"]["reason"] == SUMMARIES_OFF
        doctor = run_cli("doctor", "--no-check", *where, env=off)
        assert doctor["index"]["summaries"] == {"source": "fallback", "reason": SUMMARIES_OFF}
        assert summary_requests(llm) == []
        (root / "docs" / "ops.md").write_text(DOC + "\nAnother paragraph.\n")
        on = run_cli("index", *where, env=provider_env(llm))
        assert on["summaries"]["source"] == "provider"
        assert (on["summaries"]["asked"], on["summaries"]["failed"]) == (1, 0)
        doctor = run_cli("doctor", "--no-check", *where, env=provider_env(llm))
        model = f"openai:{llm.base_url_openai}:fake"
        assert on["summaries"]["model"] == model
        assert doctor["index"]["summaries"] == {"source": "provider", "model": model}
        plain = subprocess.run(
            [sys.executable, "-m", "server", "doctor", "--no-check", *where],
            capture_output=True,
            text=True,
            timeout=120,
            env=off,
            check=False,
        )
        assert f"summaries: deterministic fallback ({SUMMARIES_OFF})" in plain.stdout
    assert len(summary_requests(llm)) == 1


async def test_switching_summaries_off_while_running_stops_asking(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    with FakeLLM({"rules": [{"match": ASKED, "reply": SENTENCE}], "default": "ok"}) as llm:
        async with running_server(root, settings_for(llm)) as (client, events):
            await events.wait_for(events.summarized("docs/ops.md"))
            assert len(summary_requests(llm)) == 1
            assert (await status(client))["index"]["summaries"]["source"] == "provider"
            client.set_configuration(
                {**settings_for(llm), "indexSummaries": False}, section="agentLs"
            )
            client.workspace_did_change_configuration(
                types.DidChangeConfigurationParams(settings=None)
            )
            report = (await status(client))["index"]
            assert report["summaries"] == {"source": "fallback", "reason": SUMMARIES_OFF}
            ops = root / "docs" / "ops.md"
            ops.write_text(DOC.replace("| Q2 |", "| Q3 |"))
            since = events.mark()
            client.text_document_did_save(
                types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=ops.as_uri()))
            )
            await events.wait_for(events.indexed("docs/ops.md"), since)
            (hit,) = await search(client, "hangar closed", k=1)
            assert hit["summary"].startswith("Table: When the hangar may be closed.")
            assert (await status(client))["index"]["documents"]["chunked"] == 0
        assert len(summary_requests(llm)) == 1  # nothing asked once it was off
