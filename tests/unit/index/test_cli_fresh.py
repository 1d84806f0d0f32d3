"""`agent-ls search` searches a fresh index at once and walks the workspace only when the
index is stale or `--update` asks (issue 27, item 6; actions/index/freshness.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.unit.index.test_cli import agent_ls

HOUR_AGO_NS = time.time_ns() - 3600 * 10**9


def indexed_workspace(root: Path) -> None:
    """guide.md indexed, every folder's time an hour back (settled before the walk)."""
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("# Regions\n\nConnect to the nearest zorblax.\n")
    for folder in (root, root / "docs"):
        os.utime(folder, ns=(HOUR_AGO_NS, HOUR_AGO_NS))
    built = agent_ls("index", "--workspace", str(root), "--json", "--no-embed")
    assert built.returncode == 0, built.stderr


def found(root: Path, query: str, *flags: str) -> tuple[list[str], str]:
    """The paths a search finds, and what it logged (INFO) on stderr."""
    args = ("search", "--workspace", str(root), "--json", "--log-level", "INFO", *flags)
    result = agent_ls(*args, query)
    assert result.returncode == 0, result.stderr
    return [hit["path"] for hit in json.loads(result.stdout)], result.stderr


def test_a_fresh_index_is_searched_without_walking_until_update(tmp_path: Path) -> None:
    indexed_workspace(tmp_path)
    # A file added with its folder's time put back: the one change no cheap signal shows, so
    # only a walk can find it.
    (tmp_path / "docs" / "later.md").write_text("# Later\n\nThe quuxify step.\n")
    os.utime(tmp_path / "docs", ns=(HOUR_AGO_NS, HOUR_AGO_NS))
    paths, log = found(tmp_path, "quuxify")
    assert paths == []
    assert "the index is fresh" in log
    assert found(tmp_path, "zorblax")[0] == ["docs/guide.md"]
    paths, _ = found(tmp_path, "quuxify", "--update")
    assert paths == ["docs/later.md"]


def test_a_stale_index_is_walked_first(tmp_path: Path) -> None:
    indexed_workspace(tmp_path)
    (tmp_path / "docs" / "guide.md").write_text("# Regions\n\nConnect to the nearest blorptown.\n")
    paths, log = found(tmp_path, "blorptown")
    assert paths == ["docs/guide.md"]
    assert "walking the workspace: docs/guide.md changed" in log
    (tmp_path / "docs" / "new.md").write_text(
        "# New\n\nA frobnicate note.\n"
    )  # folder's time moves
    assert found(tmp_path, "frobnicate")[0] == ["docs/new.md"]
    (tmp_path / "docs" / "new.md").unlink()
    assert found(tmp_path, "frobnicate")[0] == []


def test_a_search_imports_neither_the_protocol_nor_the_chat_loop_nor_a_chunker(
    tmp_path: Path,
) -> None:
    (tmp_path / "tool.py").write_text("def zorblax_tool():\n    return 1\n")
    indexed_workspace(tmp_path)  # a markdown and a Python file, chunked by `agent-ls index`
    command = [sys.executable, "-X", "importtime", "-m", "server", "search"]
    result = subprocess.run(
        [*command, "--workspace", str(tmp_path), "zorblax"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "docs/guide.md" in result.stdout
    assert "tool.py" in result.stdout
    imported = {line.split("|")[-1].strip() for line in result.stderr.splitlines()}
    heavy = {"lsprotocol.types", "server.protocol", "server.commands.chat", "httpx", "git"}
    assert not heavy & imported
    assert not {"markdown_it", "tree_sitter", "pathspec"} & imported  # the index is fresh
    assert "actions.checkpoints" not in imported
