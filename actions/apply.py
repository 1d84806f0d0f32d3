"""Applying file writes: the `Applier` seam and the disk implementation (SPEC §7).

The agent loop hands every plan file to an `Applier`. `DiskApplier` writes the disk
atomically (the CLI, and editors that cannot apply edits); the LSP server wraps it with
one that also updates open editor buffers. After a checkpoint store restored files on disk
(rollback, undo, redo), `sync` brings open buffers to the same content.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from actions.checkpoints.types import FileState
from actions.diskio import delete_file, write_atomic
from actions.errors import ActionError, WriteFailed
from actions.paths import ResolvedPath, qualified


@dataclass(frozen=True)
class FileWrite:
    """The new content of one confined path; `content is None` deletes the file."""

    target: ResolvedPath
    content: str | None

    @property
    def relative(self) -> str:
        """Workspace-relative; qualified by folder name in a multi-root workspace."""
        return qualified(self.target.label, self.target.relative)


class ApplyRefused(ActionError):
    """A write that must not happen (unsaved editor changes, an editor that said no). A plan
    it was part of is rolled back and the turn goes on: the model is told and answers."""

    def __init__(self, path: str, reason: str, *, message: str | None = None) -> None:
        self.path = path
        self.reason = reason
        super().__init__(message or f"{path}: {reason}")


class EditorRefused(ApplyRefused):
    """The editor answered a write with a refusal: `workspace/applyEdit` with applied=false
    (its failureReason), an ACP client's error to `fs/write_text_file` ("Permission denied").
    One wording for every front end: "the editor refused to write <path>: <reason>"."""

    def __init__(self, path: str, reason: str) -> None:
        reason = reason.strip() or "no reason given"
        super().__init__(path, reason, message=f"the editor refused to write {path}: {reason}")


class Applier(Protocol):
    async def current_text(self, target: ResolvedPath) -> str:
        """What the user sees of an existing file: its open buffer, else the disk
        (ActionError when it cannot be read as UTF-8 text)."""
        ...

    async def apply(self, writes: Sequence[FileWrite]) -> None:
        """Make every write visible (disk, and open buffers where there are any)."""
        ...

    async def sync(self, states: Sequence[FileState]) -> None:
        """Disk already holds `states`: bring whatever else shows these files in line."""
        ...


def read_text(target: ResolvedPath) -> str:
    """The file's exact text (line endings kept); ActionError if unreadable or not UTF-8."""
    try:
        data = target.absolute.read_bytes()
    except OSError as error:
        raise ActionError(f"{target.model_path} cannot be read ({error.strerror})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ActionError(f"{target.model_path} is not UTF-8 text; it cannot be edited") from None


class DiskApplier:
    """Atomic disk writes: temp file + fsync + rename; deletions tidy emptied folders."""

    def __init__(self, root: Path) -> None:
        self.root = root

    async def current_text(self, target: ResolvedPath) -> str:
        return await asyncio.to_thread(read_text, target)

    async def apply(self, writes: Sequence[FileWrite]) -> None:
        await asyncio.to_thread(self._write_all, writes)

    def _write_all(self, writes: Sequence[FileWrite]) -> None:
        for write in writes:
            try:
                if write.content is None:
                    delete_file(write.target.absolute, stop_at=write.target.root)
                else:
                    write_atomic(write.target.absolute, write.content.encode("utf-8"))
            except OSError as error:  # disk full, read-only...: the file is as it was
                raise WriteFailed(f"the file {write.relative}", error) from None

    async def sync(self, states: Sequence[FileState]) -> None:
        return None
