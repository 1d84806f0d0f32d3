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

import pytest


def imported_modules(stderr: str) -> set[str]:
    """The modules ``python -X importtime`` reports."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if "|" in line}


def build(workspace: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-X", "importtime", "-m", "server", "index"]
    command += ["--workspace", str(workspace), "--no-embed", "--no-summaries", "--json"]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=120, env=env, check=False
    )


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
    run = build(workspace, env)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["documents"]["ready"] == 2
    assert "git" not in imported_modules(run.stderr)
    assert "git.repo" not in imported_modules(run.stderr)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_a_work_tree_owned_by_another_user_is_still_listed_by_git(tmp_path: Path) -> None:
    """git refuses to discover a repository another user owns (`safe.directory`); GitPython
    never checked, and the listing names the repository explicitly: still git's listing."""
    workspace = tmp_path / "mounted"
    workspace.mkdir()
    (workspace / "guide.md").write_text("# Guide\n\nTracked.\n")
    (workspace / "local.md").write_text("# Local\n\nExcluded by .git/info/exclude.\n")
    git(workspace, "init", "-q")
    (workspace / ".git" / "info" / "exclude").write_text("local.md\n")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-q", "-m", "start")
    subprocess.run(["chown", "-R", "65534:65534", str(workspace)], check=True)
    run = build(workspace, dict(os.environ, AGENT_LS_INDEX_DIR=str(tmp_path / "store")))
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["documents"]["ready"] == 1
