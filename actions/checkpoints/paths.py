"""Which workspace paths the checkpoint store accepts.

A plan must not edit what we cannot undo: paths outside the workspace, inside a `.git`,
symbolic links, directories, git-ignored files and files over the size cap are refused
with `CheckpointRefused` before anything is written. Secret files (the deny list of
`actions.paths`, less the user's allow-list) are refused too: no copy of them ever enters
the store.

Ignore rules are the user's own repositories' (matched in-process by `actions.files.ignore`, which
only reads). Each path is checked in the innermost repository that holds it (nested repos
and submodules have their own rules).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from actions.checkpoints.types import CheckpointRefused
from actions.files.ignore import repo_ignore, toplevel
from actions.paths import SecretPolicy


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


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.1f} MB ({size} bytes)"


class PathPolicy:
    """Checks paths of one workspace: confinement, file type, size cap, git ignore rules."""

    def __init__(
        self,
        workspace: Path,
        store_dir: Path,
        max_file_bytes: int,
        secrets: SecretPolicy | None = None,
    ) -> None:
        self.workspace = workspace
        self.store_dir = store_dir
        self.max_file_bytes = max_file_bytes
        self.secrets = secrets or SecretPolicy()

    def check(self, paths: Iterable[str]) -> None:
        """Refuse the first path that cannot be snapshotted (as it is on disk now)."""
        paths = list(paths)
        for path in paths:
            self.check_secret(check_rel_path(path))
            self.check_file(path)
        ignored = self.ignored(paths)
        if ignored:
            first = sorted(ignored)[0]
            raise CheckpointRefused(first, "ignored by .gitignore: agent-ls does not snapshot it")

    def check_secret(self, path: str) -> None:
        pattern = self.secrets.refused(path)
        if pattern is not None:
            raise CheckpointRefused(
                path, f"a secret file ({pattern!r}): agent-ls keeps no copy of it"
            )

    def check_size(self, path: str, size: int) -> None:
        if size > self.max_file_bytes:
            raise CheckpointRefused(
                path,
                f"{_megabytes(size)} is over the checkpoint size cap of "
                f"{_megabytes(self.max_file_bytes)}: agent-ls could not undo it, so it is not "
                "written (split it into smaller files)",
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
            rules = repo_ignore(repo)
            if rules is None:
                continue
            rel = {os.path.relpath(self.workspace / path, repo): path for path in members}
            found.update(rel[name] for name in rules.ignored(rel))
        return found

    def _repo_of(self, path: str) -> Path | None:
        """The work tree root of the innermost repository holding `path`."""
        parent = PurePosixPath(path).parent
        while str(parent) != ".":
            if (self.workspace / parent / ".git").exists():
                return self.workspace / parent
            parent = parent.parent
        return toplevel(self.workspace)
