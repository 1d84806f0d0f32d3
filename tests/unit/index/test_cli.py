"""`agent-ls index` and `agent-ls search` as a user runs them (real processes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TABLE = "| region | endpoint |\n|---|---|\n| eu | eu.example.org |\n| us | us.example.org |"


def agent_ls(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
        check=False,
    )


def test_index_json_counts_and_failures_then_incremental(tmp_path: Path) -> None:
    (tmp_path / "guide.md").write_text("# Regions\n\nWhere to connect.\n\n" + TABLE + "\n")
    (tmp_path / "blob.md").write_bytes(b"\0\0\0")
    first = agent_ls("index", "--workspace", str(tmp_path), "--json")
    assert first.returncode == 0, first.stderr
    result = json.loads(first.stdout)
    assert result["documents"] == {"pending": 0, "chunked": 0, "ready": 1, "failed": 1}
    assert result["failures"] == [{"path": "blob.md", "reason": "binary (NUL bytes)"}]
    assert (result["indexed"], result["unchanged"]) == (1, 0)
    assert not Path(result["location"]).is_relative_to(tmp_path)  # outside the workspace
    again = json.loads(agent_ls("index", "--workspace", str(tmp_path), "--json").stdout)
    assert (again["indexed"], again["unchanged"]) == (0, 2)
    text = agent_ls("index", "--workspace", str(tmp_path))
    assert "1 ready, 1 failed" in text.stdout
    assert "failed:    blob.md: binary (NUL bytes)" in text.stdout


def test_search_json_records_and_text(tmp_path: Path) -> None:
    (tmp_path / "guide.md").write_text("# Regions\n\nWhere to connect.\n\n" + TABLE + "\n")
    found = agent_ls("search", "--workspace", str(tmp_path), "--k", "1", "--json", "connect")
    assert found.returncode == 0, found.stderr
    (record,) = json.loads(found.stdout)
    assert record["content"] == TABLE
    assert record == {
        "path": "guide.md",
        "startLine": 5,
        "endLine": 8,
        "type": "table",
        "headings": ["Regions"],
        "content": TABLE,
        "summary": record["summary"],
        "score": record["score"],
    }
    assert record["summary"].startswith("Table: Where to connect. Columns: region, endpoint.")
    text = agent_ls("search", "--workspace", str(tmp_path), "endpoint")
    assert "1. guide.md:5-8 [table] — Regions" in text.stdout
    none = agent_ls("search", "--workspace", str(tmp_path), "--json", "zzzqqq")
    assert json.loads(none.stdout) == []


def test_bad_invocations_say_what_is_wrong(tmp_path: Path) -> None:
    missing = agent_ls("index", "--workspace", str(tmp_path / "nope"))
    assert missing.returncode == 2
    assert "does not exist" in missing.stderr  # the same wording as every command
    empty = agent_ls("search", "--workspace", str(tmp_path), "  ")
    assert empty.returncode == 2
    assert "the query is empty" in empty.stderr
    url = agent_ls("index", "--workspace", str(tmp_path), "--index-url", "mysql://db")
    assert url.returncode == 2
    assert url.stderr.startswith("agent-ls: setting agentLs.indexUrl (from command line)")
    assert "the scheme is 'mysql'" in url.stderr
