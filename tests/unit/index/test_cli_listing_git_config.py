"""What `agent-ls index` lists of a git work tree follows the user's git settings, and runs
nothing a repository's own config names: the global excludes file (`core.excludesFile`, read
through HOME) leaves its files out; a `core.fsmonitor` command in `.git/config` (which
`git ls-files -o` runs) is not run when the workspace is listed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def build(workspace: Path, env: dict[str, str]) -> dict[str, object]:
    command = [sys.executable, "-m", "server", "index", "--workspace", str(workspace)]
    command += ["--no-embed", "--no-summaries", "--json"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def search(workspace: Path, query: str, env: dict[str, str]) -> list[str]:
    command = [sys.executable, "-m", "server", "search", query, "--workspace", str(workspace)]
    run = subprocess.run([*command, "--json"], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    return [hit["path"] for hit in json.loads(run.stdout)]


def committed(workspace: Path) -> None:
    base = ["git", "-C", str(workspace), "-c", "user.name=t", "-c", "user.email=t@localhost"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
        subprocess.run([*base, *args], check=True, capture_output=True)


def test_the_global_excludes_file_leaves_its_files_out(tmp_path: Path) -> None:
    home, workspace = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    (home / "ignore").write_text("*.log\n")
    (home / ".gitconfig").write_text(f"[core]\n\texcludesFile = {home / 'ignore'}\n")
    (workspace / "guide.md").write_text("# Guide\n\nHow to reach the harbour.\n")
    committed(workspace)
    (workspace / "debug.log").write_text("harbour password: hunter2\n")  # untracked, ignored
    env = dict(os.environ, HOME=str(home), AGENT_LS_INDEX_DIR=str(tmp_path / "store"))
    env.pop("XDG_CONFIG_HOME", None)
    assert build(workspace, env)["documents"]["ready"] == 1
    assert search(workspace, "harbour", env) == ["guide.md"]


def test_a_repository_s_fsmonitor_command_is_not_run(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "guide.md").write_text("# Guide\n\nHow to reach the harbour.\n")
    committed(workspace)
    marker = tmp_path / "ran"
    hook = tmp_path / "fsmonitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    subprocess.run(["git", "-C", str(workspace), "config", "core.fsmonitor", str(hook)], check=True)
    (workspace / "draft.md").write_text("# Draft\n\nUntracked: listed.\n")
    env = dict(os.environ, AGENT_LS_INDEX_DIR=str(tmp_path / "store"))
    assert build(workspace, env)["documents"]["ready"] == 2
    assert not marker.exists()
