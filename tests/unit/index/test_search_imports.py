"""A search of a fresh index loads no parser it does not use (issue 27, item 6): the markdown
parser, tree-sitter and the gitignore matcher are loaded when a document is chunked or an
ignore file read, which a search of a fresh index never does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.unit.index.test_cli_fresh import indexed_workspace


def test_a_search_of_a_fresh_index_loads_no_chunker(tmp_path: Path) -> None:
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
    assert not {"markdown_it", "tree_sitter", "pathspec"} & imported
