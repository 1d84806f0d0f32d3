"""Plan files in an ACP session: through the client's file system when it offers one.

A client that advertises `fs.writeTextFile` gets every created or updated file as an
`fs/write_text_file` request, so its open, unsaved buffers are respected the way it chooses;
otherwise the disk is written atomically, exactly as in LSP mode without an editor. ACP has
no delete: deletions go to the disk. Each written file is also shown to the user as an
`edit` tool call with its diff (old text from the disk before the write).

After a rollback or undo the disk already holds the restored content; a client with a file
system gets it through `fs/write_text_file` too, so its buffers follow. A rollback restores
only the files the plan wrote: a planned file not written yet gets no write at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from actions.apply import ApplyRefused, DiskApplier, FileWrite
from actions.checkpoints.types import FileState
from actions.diskio import read_bytes_or_none
from actions.paths import ResolvedPath
from server.acp.updates import UpdateSink


class FileClient(Protocol):
    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> Any: ...


class AcpApplier:
    """The Applier of an ACP session (see actions.apply.Applier)."""

    def __init__(
        self,
        root: Path,
        session_id: str,
        client: FileClient | None,
        sink: UpdateSink,
        reader: Any = None,
    ) -> None:
        self.disk = DiskApplier(root)
        self.root = root
        self.session_id = session_id
        self.client = client  # None: the client has no fs.writeTextFile
        self.sink = sink
        self.reader = reader  # the client, when it offers fs/read_text_file

    async def current_text(self, target: ResolvedPath) -> str:
        """What the user sees: the client's buffer (fs/read_text_file), else the disk."""
        if self.reader is not None:
            try:
                response = await self.reader.read_text_file(
                    session_id=self.session_id, path=str(target.absolute)
                )
                return str(response.content)
            except Exception:  # the client could not read it: the disk is the truth
                pass
        return await self.disk.current_text(target)

    async def apply(self, writes: Sequence[FileWrite]) -> None:
        for write in writes:
            absolute = write.target.absolute
            before = await asyncio.to_thread(read_bytes_or_none, absolute)
            old = before.decode("utf-8", errors="replace") if before is not None else None
            if write.content is None or self.client is None:
                await self.disk.apply([write])
            else:
                await self._client_write(write.relative, absolute, write.content)
            self.sink.file_written(write.relative, str(absolute), old, write.content)

    async def _client_write(self, relative: str, absolute: Path, content: str) -> None:
        assert self.client is not None
        try:
            await self.client.write_text_file(
                session_id=self.session_id, path=str(absolute), content=content
            )
        except Exception as exc:  # the client said no: the plan is rolled back
            raise ApplyRefused(relative, f"the editor refused the write ({exc})") from None

    async def sync(self, states: Sequence[FileState]) -> None:
        if self.client is None:
            return
        for state in states:
            if state.content is None:
                continue
            text = state.content.decode("utf-8", errors="replace")
            try:
                await self.client.write_text_file(
                    session_id=self.session_id, path=str(self.root / state.path), content=text
                )
            except Exception:  # the disk is already right; the buffer reloads from it
                continue
