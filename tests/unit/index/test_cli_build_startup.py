"""`agent-ls index --no-embed` loads only what a build without vectors needs (issue 27 item 8:
its CPU against a plain FTS5 build): with the `embeddings` extra installed and no vector yet,
the build reports exact vector search without loading the vectors (numpy: a tenth of a CPU
second, more than the build of a small workspace)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from actions.index.embeddings import dense_status

pytestmark = pytest.mark.skipif(
    not dense_status().enabled, reason="needs the embeddings extra (part of the test extra)"
)


def imported_modules(stderr: str) -> set[str]:
    """The modules ``python -X importtime`` reports."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if "|" in line}


def test_a_build_without_vectors_reports_exact_search_without_loading_them(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "guide.md").write_text("# Regions\n\nWhere to connect: eu.example.org.\n")
    (workspace / "tool.py").write_text("def connect(region):\n    return region\n")
    env = dict(os.environ, AGENT_LS_INDEX_DIR=str(tmp_path / "store"))
    command = [sys.executable, "-X", "importtime", "-m", "server", "index"]
    command += ["--workspace", str(workspace), "--no-embed", "--no-summaries", "--json"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["documents"]["ready"] == 2
    assert report["embeddings"]["pending"] == report["chunks"] > 0
    assert report["embeddings"]["search"] == {"kind": "exact", "building": False}
    assert "numpy" not in imported_modules(run.stderr)
