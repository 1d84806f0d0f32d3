"""Collect the workspace's file paths, honouring .gitignore.

Two sources, same result shape (workspace-relative posix paths of files):
- ``git ls-files -co --exclude-standard -z`` when the folder is inside a git work tree: tracked
  and untracked files, ignored ones excluded by git itself (nested .gitignore files,
  ``.git/info/exclude``, the global excludes file);
- otherwise a walk honouring every ``.gitignore`` found (matched with ``pathspec``'s
  ``GitIgnoreSpec``, nested files applying below their folder, a later match winning).

The walk stops after ``scan_limit`` files so a huge tree cannot stall the session.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pathspec


@dataclass(frozen=True)
class Listing:
    """Files found (relative posix paths), where they came from, and whether the scan stopped."""

    files: list[str]
    source: str  # "git" or "walk"
    complete: bool = True


async def git_files(root: Path, prefix: str, timeout: float) -> Listing | None:
    """Files from git, or ``None`` when ``root`` is not in a usable git work tree."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    command = [
        "git",
        "--literal-pathspecs",
        "ls-files",
        "-co",
        "--exclude-standard",
        "-z",
        "--",
        prefix or ".",
    ]
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            cwd=root,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return None  # no git binary: fall back to the walk
    try:
        out, _ = await asyncio.wait_for(process.communicate(), timeout)
    except TimeoutError:
        process.kill()
        await process.wait()
        return None
    if process.returncode != 0:
        return None
    names = [os.fsdecode(raw) for raw in out.split(b"\0") if raw]
    existing = await asyncio.to_thread(_existing, root, names)
    return Listing(existing, "git")


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
