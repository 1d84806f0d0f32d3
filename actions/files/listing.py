"""Collect the workspace's file paths, honouring .gitignore.

Two sources, same result shape (workspace-relative posix paths of files):
- ``git ls-files -co --exclude-standard -z`` when the folder is inside a git work tree (found
  by ``git rev-parse``; GitPython is not imported): tracked and untracked files, ignored ones
  excluded by git itself (nested .gitignore files, ``.git/info/exclude``, the global excludes
  file);
- otherwise a walk honouring every ``.gitignore`` found (``actions.files.ignore``: nested
  files applying below their folder, the deepest match winning, as git does).

The walk stops after ``scan_limit`` files so a huge tree cannot stall the session.
``SKIP_DIRS`` are the noise folders that the tools and the index leave out of a listing.
"""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from actions.files.gitenv import run_git, work_tree_env
from actions.files.ignore import IgnoreTree

log = logging.getLogger(__name__)

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
    }
)


@dataclass(frozen=True)
class Listing:
    """Files found (relative posix paths), where they came from, and whether the scan stopped."""

    files: list[str]
    source: str  # "git" or "walk"
    complete: bool = True


async def list_files(
    root: Path, prefix: str, skip: Callable[[str], bool], *, timeout: float, scan_limit: int
) -> Listing:
    """The files below ``root/prefix``: git's listing in a work tree, else a walk (which
    leaves out what ``skip`` names; git's listing is filtered by the caller)."""
    return await asyncio.to_thread(list_files_now, root, prefix, skip, timeout, scan_limit)


def list_files_now(
    root: Path, prefix: str, skip: Callable[[str], bool], timeout: float, scan_limit: int
) -> Listing:
    """``list_files``, in the calling thread."""
    return git_files(root, prefix, timeout) or walk_files(root, prefix, skip, scan_limit)


def in_skipped_dir(relative: str, skip_dirs: frozenset[str] = SKIP_DIRS) -> bool:
    """Is ``relative`` one of ``skip_dirs`` or below one?"""
    return any(part in skip_dirs for part in relative.split("/"))


def git_files(root: Path, prefix: str, timeout: float) -> Listing | None:
    """Files from git, or ``None`` when ``root`` is not in a usable git work tree."""
    env = work_tree_env(root, timeout)
    if env is None:
        return None  # not a git work tree: the walk lists it
    command = ["--literal-pathspecs", "ls-files", "-co", "--exclude-standard", "-z"]
    try:
        done = run_git([*command, "--", prefix or "."], env=env, cwd=root, timeout=timeout)
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("git ls-files failed in %s (listing by a walk): %s", root, exc)
        return None
    if done.returncode != 0:
        error = os.fsdecode(done.stderr).strip()
        log.warning("git ls-files failed in %s (listing by a walk): %s", root, error)
        return None
    names = [os.fsdecode(raw) for raw in done.stdout.split(b"\0") if raw]
    return Listing(_existing(root, names), "git")


def _existing(root: Path, names: Sequence[str]) -> list[str]:
    """Drop tracked files deleted from the work tree; keep untracked nested repos as folders."""
    return [name.rstrip("/") for name in names if os.path.lexists(root / name)]


def walk_files(
    root: Path,
    prefix: str,
    skip: Callable[[str], bool],
    scan_limit: int,
) -> Listing:
    """Files under ``root/prefix`` not ignored by .gitignore nor ``skip`` (folders too)."""
    rules = IgnoreTree(root)
    files: list[str] = []
    for current, dirs, names in os.walk(root / prefix if prefix else root):
        folder = Path(current).relative_to(root).as_posix()
        folder = "" if folder == "." else folder
        kept = []
        for name in sorted(dirs):
            relative = f"{folder}/{name}" if folder else name
            if skip(relative) or rules.excluded(relative, is_dir=True):
                continue
            if os.path.islink(os.path.join(current, name)):
                files.append(relative)  # listed, never followed
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(names):
            relative = f"{folder}/{name}" if folder else name
            if not skip(relative) and not rules.excluded(relative, is_dir=False):
                files.append(relative)
        if len(files) >= scan_limit:
            return Listing(files, "walk", complete=False)
    return Listing(files, "walk")
