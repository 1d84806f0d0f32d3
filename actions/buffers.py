"""What the editor shows of a file: the `BufferSource` seam the model's reads go through.

A front end whose editor holds buffers of the files (an ACP client offering
`fs/read_text_file`, an LSP client's open documents) gives the tools and the plans a
`BufferSource`: `read_file` shows the model that text, a plan's search/replace blocks match
it, and the pre-image a rollback or undo restores is it. Without one (the CLI) the disk is
read. An editor that cannot answer never fails the turn: the disk is read, with a note.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

MAX_BUFFER_BYTES = 4 * 1024 * 1024
"""Files larger than this on disk are read from the disk (an editor's answer is one message)."""


class BufferUnreadable(Exception):
    """The editor could not give its text of a file (it answered an error)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class BufferSource(Protocol):
    async def buffer_text(self, path: Path) -> str | None:
        """The editor's text of the existing file `path` (absolute): its buffer, or what the
        editor reads for it; None when it holds none (the disk is the text). Raises
        BufferUnreadable when the editor answered an error."""
        ...


@dataclass(frozen=True)
class BufferRead:
    """The editor's text of a file (None: read the disk) and, when it failed, why."""

    text: str | None
    note: str = ""


async def read_buffer(source: BufferSource | None, path: Path) -> BufferRead:
    """The editor's text of `path`, or None with a note naming the editor's error."""
    if source is None:
        return BufferRead(None)
    try:
        return BufferRead(await source.buffer_text(path))
    except BufferUnreadable as error:
        return BufferRead(None, f"the editor could not give its text ({error.reason}); disk read")
