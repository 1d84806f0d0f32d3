"""Workspace files held before an external run (a command, the `cli` agent), to tell after
the run what it changed and to give undo their exact pre-images.

`Held` keeps the bytes and executable bit of the files it is given, up to `MAX_FILE_BYTES` a
file and `MAX_HELD_BYTES` in all; a file over either bound is remembered by its stat signature
only, so a change to it is reported (not undoable) and an untouched one is not. `diff` compares
the candidates with the disk and keeps only what really differs.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from actions.paths import SecretPolicy, Workspace

MAX_HELD_BYTES = 256 * 2**20
MAX_FILE_BYTES = 5 * 2**20

# A regular file's bytes and executable bit; None: absent, or not a regular file (a folder, a
# symbolic link), which undo does not cover.
FileImage = tuple[bytes, bool] | None
# What the checkpoint store records: (content or None when the file did not exist, executable).
PreImage = tuple[bytes | None, bool]
# (size, mtime ns, ctime ns, inode) of a file too big to hold; None: absent or not a file.
Signature = tuple[int, int, int, int] | None


@dataclass(frozen=True)
class Scope:
    """The workspace a scan covers: never `.git` nor the checkpoint store (`is_denied`), never
    a secret file the store refuses (not even read), files up to `max_file_bytes` held."""

    workspace: Workspace
    secrets: SecretPolicy
    max_file_bytes: int = MAX_FILE_BYTES

    @property
    def root(self) -> Path:
        return self.workspace.root

    def covers(self, path: str) -> bool:
        return not self.workspace.is_denied(path) and self.secrets.refused(path) is None


def read_image(path: Path) -> FileImage:
    """The file at `path` as undo would restore it (None: absent or not a regular file)."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode):
            return None
        return path.read_bytes(), bool(info.st_mode & stat.S_IXUSR)
    except OSError:
        return None


def signature(path: Path) -> Signature:
    """How the regular file at `path` looks (None: absent, or not a regular file)."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino


@dataclass
class Held:
    """Files as they were before the run (see the module)."""

    max_file_bytes: int = MAX_FILE_BYTES
    budget: int = MAX_HELD_BYTES
    images: dict[str, FileImage] = field(default_factory=dict)
    too_big: dict[str, Signature] = field(default_factory=dict)

    def hold(self, root: Path, paths: Iterable[str]) -> None:
        for path in paths:
            if path in self.images or path in self.too_big:
                continue
            target = root / path
            try:
                info = os.lstat(target)
            except OSError:
                self.images[path] = None
                continue
            size = info.st_size
            if stat.S_ISREG(info.st_mode) and (size > self.max_file_bytes or size > self.budget):
                self.too_big[path] = (size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
                continue
            image = read_image(target)
            self.budget -= len(image[0]) if image is not None else 0
            self.images[path] = image

    def paths(self) -> set[str]:
        return set(self.images) | set(self.too_big)


@dataclass(frozen=True)
class Baseline:
    """Pre-images of candidates the run's `Held` did not hold (for git: index blobs)."""

    images: dict[str, FileImage]
    unknown: frozenset[str] = frozenset()  # could not be provided (too big): not undoable


@dataclass(frozen=True)
class Changes:
    """What the run really changed: pre-images to record, and changes undo cannot cover."""

    pre: dict[str, PreImage]
    unrecorded: list[str]


def diff(
    root: Path,
    candidates: Iterable[str],
    held: Held,
    baseline: Callable[[list[str]], Baseline],
) -> Changes:
    """Compare each candidate's image before (held, else from `baseline`) with the disk."""
    ordered = sorted(set(candidates))
    unheld = [path for path in ordered if path not in held.images and path not in held.too_big]
    base = baseline(unheld) if unheld else Baseline({})
    pre: dict[str, PreImage] = {}
    unrecorded: list[str] = []
    for path in ordered:
        if path in held.too_big:
            if signature(root / path) != held.too_big[path]:
                unrecorded.append(path)
            continue
        if path in base.unknown:
            unrecorded.append(path)
            continue
        old = held.images[path] if path in held.images else base.images.get(path)
        if old != read_image(root / path):
            pre[path] = old if old is not None else (None, False)
    return Changes(pre, unrecorded)
