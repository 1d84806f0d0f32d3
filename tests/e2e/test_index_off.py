"""The workspace index can be turned off, and its first build shows its progress (issue 21
item 7). `index: false` (or `AGENT_LS_INDEX=0`): no index file is created, the model is not
offered `search_docs`, `agent/search` answers a clear error, `agent/status` says `off`, and
`agent-ls search` refuses with the same reason. With it on, a client that supports
`window/workDoneProgress` gets the first build's `$/progress`: begin, reports with the
counts, end with the documents by status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from server.protocol import AGENT_CHAT, AGENT_SEARCH
from tests.e2e.conftest import as_dict, settings_for
from tests.e2e.search_support import running_server, search, status
from tests.fakellm import FakeLLM

OFF = "the workspace index is off"


def workspace(tmp_path: Path, files: int = 3) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    for number in range(files):
        (root / f"note{number:02d}.md").write_text(f"# Note {number}\n\nThe kumquat {number}.\n")
    return root


@pytest.mark.parametrize("how", ["setting", "environment"])
async def test_with_the_index_off_nothing_is_built_nor_offered(tmp_path: Path, how: str) -> None:
    root = workspace(tmp_path)
    cache = tmp_path / "cache"
    env = {"XDG_CACHE_HOME": str(cache)}
    with FakeLLM({"replies": ["No index needed."]}) as llm:
        settings = settings_for(llm)
        if how == "setting":
            settings["index"] = False
        else:
            env["AGENT_LS_INDEX"] = "0"
        async with running_server(root, settings, env=env) as (client, _):
            report = await status(client)
            assert report["index"]["state"] == "off"
            assert OFF in report["index"]["hint"]
            assert [folder["index"]["state"] for folder in report["folders"]] == ["off"]
            with pytest.raises(JsonRpcException, match=OFF):
                await client.protocol.send_request_async(AGENT_SEARCH, {"query": "kumquat"})
            result = await client.protocol.send_request_async(AGENT_CHAT, {"message": "hi"})
            assert as_dict(result)["text"] == "No index needed."
            sent = json.dumps(llm.requests[-1].body)
            assert "search_files" in sent
            assert "search_docs" not in sent
            assert "find_symbol" not in sent
        assert not (cache / "agent-ls" / "index").exists()
    refused = subprocess.run(
        [sys.executable, "-m", "server", "search", "--workspace", str(root), "kumquat"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env, "AGENT_LS_INDEX": "0"},
        check=False,
    )
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"agent-ls: {OFF} (AGENT_LS_INDEX=0)")
    assert not (cache / "agent-ls" / "index").exists()


async def test_the_first_build_reports_its_progress_with_counts(tmp_path: Path) -> None:
    root = workspace(tmp_path, files=30)
    (root / "blob.md").write_bytes(b"\0\0")
    async with running_server(root) as (client, events):
        await events.wait_for(events.indexed("note29.md"))
        assert len(await search(client, "kumquat", k=3)) == 3
        (bar,) = [
            reports
            for reports in client.progress_reports.values()
            if reports[0].title == "agent-ls: indexing the workspace"
        ]
        assert bar[0].kind == "begin"
        assert bar[-1].kind == "end"
        assert bar[-1].message == "30 ready, 1 failed"
        messages = [report.message for report in bar if report.kind == "report"]
        assert messages[0].startswith("25/31 files (")
        assert messages[-1].startswith("31/31 files (")
        assert [report.percentage for report in bar if report.kind == "report"] == [80, 100]
