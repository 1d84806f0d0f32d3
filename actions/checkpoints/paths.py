"""Which workspace paths the checkpoint store accepts, and running git safely.

A plan must not edit what we cannot undo: paths outside the workspace, inside a `.git`,
symbolic links, directories, git-ignored files and files over the size cap are refused
with `CheckpointRefused` before anything is written.

Ignore rules come from the user's own repositories through `git check-ignore`, which only
reads. Each path is checked in the innermost repository that holds it (nested repos and
submodules have their own rules; asking the outer repo about them is an error in git).
"""

from __future__ import annotations

import logging
import os
import stat
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath

from actions.checkpoints.types import CheckpointRefused

log = logging.getLogger(__name__)


def clean_git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The process environment without the user's GIT_* variables, plus `extra`."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env["GIT_TERMINAL_PROMPT"] = "0"
    if extra:
        env.update(extra)
    return env


def run_git(
    args: Sequence[str], *, env: Mapping[str, str], cwd: Path | None = None, data: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    """Run git with exactly `env` (never inheriting GIT_DIR & co.); output captured."""
    return subprocess.run(
        ["git", *args], input=data, capture_output=True, env=dict(env), cwd=cwd, check=False
    )


def check_rel_path(path: str) -> str:
    """`path` if it is a clean workspace-relative posix path, else CheckpointRefused."""
    if not path or "\0" in path:
        raise CheckpointRefused(path, "empty path or NUL byte")
    pure = PurePosixPath(path)
    if pure.is_absolute() or path.startswith("~"):
        raise CheckpointRefused(path, "not a workspace-relative path")
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise CheckpointRefused(path, "path must be normalized ('', '.', '..' components)")
    if any(part.lower() == ".git" for part in parts):
        raise CheckpointRefused(path, "inside a .git folder")
    return path


class PathPolicy:
    """Checks paths of one workspace: confinement, file type, size cap, git ignore rules."""

    def __init__(self, workspace: Path, store_dir: Path, max_file_bytes: int) -> None:
        self.workspace = workspace
        self.store_dir = store_dir
        self.max_file_bytes = max_file_bytes
        self._outer_repo = any(
            (parent / ".git").exists() for parent in (workspace, *workspace.parents)
        )

    def check(self, paths: Iterable[str]) -> None:
        """Refuse the first path that cannot be snapshotted (as it is on disk now)."""
        paths = list(paths)
        for path in paths:
            self.check_file(check_rel_path(path))
        ignored = self.ignored(paths)
        if ignored:
            first = sorted(ignored)[0]
            raise CheckpointRefused(first, "ignored by .gitignore: agent-ls does not snapshot it")

    def check_size(self, path: str, size: int) -> None:
        if size > self.max_file_bytes:
            raise CheckpointRefused(
                path, f"{size} bytes is over the checkpoint size cap of {self.max_file_bytes}"
            )

    def check_file(self, path: str) -> None:
        target = self.workspace / path
        parent_real = Path(os.path.realpath(target.parent))
        if parent_real != self.workspace and self.workspace not in parent_real.parents:
            raise CheckpointRefused(path, "resolves outside the workspace (symbolic link)")
        if parent_real == self.store_dir or self.store_dir in parent_real.parents:
            raise CheckpointRefused(path, "inside the checkpoint store")
        try:
            info = target.lstat()
        except (FileNotFoundError, NotADirectoryError):
            return
        if stat.S_ISLNK(info.st_mode):
            raise CheckpointRefused(path, "is a symbolic link")
        if not stat.S_ISREG(info.st_mode):
            raise CheckpointRefused(path, "is not a regular file")
        self.check_size(path, info.st_size)

    def missing_dirs(self, path: str) -> list[str]:
        """Ancestor folders of `path` that do not exist now (deepest first)."""
        missing: list[str] = []
        parent = PurePosixPath(path).parent
        while str(parent) != "." and not (self.workspace / parent).is_dir():
            missing.append(str(parent))
            parent = parent.parent
        return missing

    def ignored(self, paths: Iterable[str]) -> set[str]:
        """The subset of `paths` the user's git ignores (tracked files never are)."""
        groups: dict[Path, list[str]] = {}
        for path in paths:
            repo = self._repo_of(path)
            if repo is not None:
                groups.setdefault(repo, []).append(path)
        found: set[str] = set()
        for repo, members in groups.items():
            found.update(self._check_ignore(repo, members))
        return found

    def _repo_of(self, path: str) -> Path | None:
        parent = PurePosixPath(path).parent
        while str(parent) != ".":
            if (self.workspace / parent / ".git").exists():
                return self.workspace / parent
            parent = parent.parent
        outer = any(
            (folder / ".git").exists() for folder in (self.workspace, *self.workspace.parents)
        )
        return self.workspace if outer else None

    def _check_ignore(self, repo: Path, paths: list[str]) -> list[str]:
        rel = {os.path.relpath(self.workspace / path, repo): path for path in paths}
        data = b"".join(name.encode() + b"\0" for name in rel)
        done = run_git(
            ["-C", str(repo), "check-ignore", "-z", "--stdin"], env=clean_git_env(), data=data
        )
        if done.returncode not in (0, 1):
            log.warning("git check-ignore failed in %s: %s", repo, done.stderr.decode().strip())
            return []
        names = [name.decode() for name in done.stdout.split(b"\0") if name]
        return [rel[name] for name in names if name in rel]
