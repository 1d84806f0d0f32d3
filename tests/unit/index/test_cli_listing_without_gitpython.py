"""`agent-ls index` lists a git work tree with git itself, not GitPython (issue 27 item 8: a
build's CPU against plain FTS5; GitPython's import alone was ~0.07 CPU s of every command):
the repository found by `git rev-parse` from a sub-folder, untracked files listed, ignored
ones (.gitignore, and .git/info/exclude which only git's listing reads) left out, GitPython
never imported; an inherited GIT_DIR redirects nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def imported_modules(stderr: str) -> set[str]:
    """The modules ``python -X importtime`` reports."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if "|" in line}


def git(root: Path, *args: str) -> None:
    base = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@localhost"]
    subprocess.run([*base, *args], check=True, capture_output=True)


def test_a_git_work_tree_is_listed_by_git_without_gitpython(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    workspace = repo / "docs"
    workspace.mkdir(parents=True)
    (repo / ".gitignore").write_text("secret*.md\n")
    (workspace / "guide.md").write_text("# Regions\n\nWhere to connect: eu.example.org.\n")
    (workspace / "secret-notes.md").write_text("# Hidden\n\nNever indexed.\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start")
    (workspace / "draft.md").write_text("# Draft\n\nUntracked, not ignored: listed.\n")
    (workspace / "local.md").write_text("# Local\n\nExcluded by .git/info/exclude.\n")
    (repo / ".git" / "info" / "exclude").write_text("local.md\n")  # git's rules, not a walk's
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    git(elsewhere, "init", "-q")  # an inherited GIT_DIR naming it must not redirect the listing
    env = dict(os.environ, AGENT_LS_INDEX_DIR=str(tmp_path / "store"))
    env["GIT_DIR"] = str(elsewhere / ".git")
    command = [sys.executable, "-X", "importtime", "-m", "server", "index"]
    command += ["--workspace", str(workspace), "--no-embed", "--no-summaries", "--json"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["documents"]["ready"] == 2
    assert "git" not in imported_modules(run.stderr)
    assert "git.repo" not in imported_modules(run.stderr)
