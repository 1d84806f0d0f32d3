"""Collect the workspace's file paths, honouring .gitignore.

Two sources, same result shape (workspace-relative posix paths of files):
- ``git ls-files -co --exclude-standard -z`` when the folder is inside a git work tree (found,
  and the command run, with GitPython): tracked and untracked files, ignored ones excluded
  by git itself (nested .gitignore files, ``.git/info/exclude``, the global excludes file);
- otherwise a walk honouring every ``.gitignore`` found (matched with ``pathspec``'s
  ``GitIgnoreSpec``, nested files applying below their folder, a later match winning).

The walk stops after ``scan_limit`` files so a huge tree cannot stall the session.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import git
import pathspec

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Listing:
    """Files found (relative posix paths), where they came from, and whether the scan stopped."""

    files: list[str]
    source: str  # "git" or "walk"
    complete: bool = True


async def git_files(root: Path, prefix: str, timeout: float) -> Listing | None:
    """Files from git, or ``None`` when ``root`` is not in a usable git work tree."""
    return await asyncio.to_thread(_git_files, root, prefix, timeout)


def _git_files(root: Path, prefix: str, timeout: float) -> Listing | None:
    try:
        repo = git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, OSError, ValueError):
        return None  # not a git work tree: the walk lists it
    if repo.bare or repo.working_tree_dir is None:
        return None
    command = ["git", "--literal-pathspecs", "ls-files", "-co", "--exclude-standard", "-z"]
    try:
        out = git.Git(root).execute(
            [*command, "--", prefix or "."],
            env=repository_env(repo),
            stdout_as_string=False,
            kill_after_timeout=timeout,
        )
    except (git.GitCommandError, git.GitCommandNotFound) as exc:
        log.warning("git ls-files failed in %s (listing by a walk): %s", root, exc)
        return None
    names = [os.fsdecode(raw) for raw in bytes(out).split(b"\0") if raw]
    return Listing(_existing(root, names), "git")


def repository_env(repo: git.Repo) -> dict[str, str]:
    """The repository GitPython found, named explicitly to git: GIT_* variables the server
    inherited (GIT_DIR, GIT_INDEX_FILE... set by a hook or a terminal) cannot redirect it."""
    git_dir = str(repo.git_dir)
    return {
        "GIT_DIR": git_dir,
        "GIT_WORK_TREE": str(repo.working_tree_dir),
        "GIT_COMMON_DIR": str(repo.common_dir),
        "GIT_INDEX_FILE": os.path.join(git_dir, "index"),
        "GIT_OBJECT_DIRECTORY": os.path.join(str(repo.common_dir), "objects"),
        "GIT_TERMINAL_PROMPT": "0",
    }


def _existing(root: Path, names: Sequence[str]) -> list[str]:
    """Drop tracked files deleted from the work tree; keep untracked nested repos as folders."""
    return [name.rstrip("/") for name in names if os.path.lexists(root / name)]


class IgnoreRules:
    """The .gitignore files met so far, by the folder they apply to."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._specs: dict[str, pathspec.GitIgnoreSpec] = {}

    def load(self, folder: str) -> None:
        """Read ``folder/.gitignore`` if it exists ("" is the root)."""
        path = self._root / folder / ".gitignore"
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return
        self._specs[folder] = pathspec.GitIgnoreSpec.from_lines(lines)

    def ignored(self, relative: str, *, is_dir: bool) -> bool:
        """The last matching rule among the applicable .gitignore files decides."""
        verdict = False
        for folder, spec in self._specs.items():
            if folder and not relative.startswith(folder + "/"):
                continue
            below = relative[len(folder) + 1 :] if folder else relative
            result = spec.check_file(below + "/" if is_dir else below)
            if result.include is not None:
                verdict = result.include
        return verdict


def walk_files(
    root: Path,
    prefix: str,
    skip: Callable[[str], bool],
    scan_limit: int,
) -> Listing:
    """Files under ``root/prefix`` not ignored by .gitignore nor ``skip`` (folders too)."""
    rules = IgnoreRules(root)
    parts = prefix.split("/") if prefix else []
    for depth in range(len(parts) + 1):
        rules.load("/".join(parts[:depth]))
    files: list[str] = []
    for current, dirs, names in os.walk(root / prefix if prefix else root):
        folder = Path(current).relative_to(root).as_posix()
        folder = "" if folder == "." else folder
        if folder != prefix:
            rules.load(folder)
        kept = []
        for name in sorted(dirs):
            relative = f"{folder}/{name}" if folder else name
            if skip(relative) or rules.ignored(relative, is_dir=True):
                continue
            if os.path.islink(os.path.join(current, name)):
                files.append(relative)  # listed, never followed
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(names):
            relative = f"{folder}/{name}" if folder else name
            if not skip(relative) and not rules.ignored(relative, is_dir=False):
                files.append(relative)
        if len(files) >= scan_limit:
            return Listing(files, "walk", complete=False)
    return Listing(files, "walk")
