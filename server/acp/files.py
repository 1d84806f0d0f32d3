"""Plan files in an ACP session: through the client's file system when it offers one.

A client that advertises `fs.writeTextFile` gets every created or updated file as an
`fs/write_text_file` request, so its open, unsaved buffers are respected the way it chooses;
otherwise the disk is written atomically, exactly as in LSP mode without an editor. ACP has
no delete: deletions go to the disk. Each written file is also shown to the user as an
`edit` tool call with its diff (old text: the client's buffer when it offers
`fs/read_text_file`, else the disk, before the write).

After a rollback or undo the disk already holds the restored content; a client with a file
system gets it through `fs/write_text_file` too, so its buffers follow. A rollback restores
only the files the plan wrote: a planned file not written yet gets no write at all.

A client that answers a write with an error (acpx's default permission mode: "Permission
denied") refused it: the write is shown as a failed `edit` tool call naming the client's
reason, and `EditorRefused` rolls the plan back (server.turns.plan tells the user and the
model; the turn ends normally). A client that offers `fs/read_text_file` is the turn's
`BufferSource` (`AcpBuffers`): the model's reads, search/replace matching and the pre-images
see its buffers; a read it answers with an error falls back to the disk with a note.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from acp import RequestError, start_tool_call, update_agent_thought_text
from acp.helpers import text_block, tool_content
from acp.schema import ToolCallLocation

from actions.apply import DiskApplier, EditorRefused, FileWrite
from actions.buffers import BufferSource, BufferUnreadable, read_buffer
from actions.checkpoints.types import FileState
from actions.diskio import read_bytes_or_none
from actions.paths import ResolvedPath
from server.acp.updates import UpdateSink

GENERIC_MESSAGES = {"Internal error", "Error", ""}


class FileClient(Protocol):
    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> Any: ...


class ReadClient(Protocol):
    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> Any: ...


def client_reason(error: Exception) -> str:
    """The client's reason for an error answer: its message ("Permission denied"), or the
    details of a generic one (the SDK answers a client's exception with "Internal error",
    the exception's text in `data.details`)."""
    message = str(error).strip()
    data = error.data if isinstance(error, RequestError) else None
    details = data.get("details") or data.get("message") if isinstance(data, dict) else None
    if isinstance(details, str) and details.strip() and details.strip() != message:
        details = details.strip()
        return details if message in GENERIC_MESSAGES else f"{message}: {details}"
    return message or type(error).__name__


class AcpBuffers:
    """The client's text of files through `fs/read_text_file` (a BufferSource): its open,
    unsaved buffers included."""

    def __init__(self, client: ReadClient, session_id: str) -> None:
        self.client = client
        self.session_id = session_id

    async def buffer_text(self, path: Path) -> str | None:
        try:
            response = await self.client.read_text_file(session_id=self.session_id, path=str(path))
        except Exception as error:  # any error answer or a lost client: the disk is read
            raise BufferUnreadable(client_reason(error)) from None
        return str(response.content)


class AcpApplier:
    """The Applier of an ACP session (see actions.apply.Applier)."""

    def __init__(
        self,
        root: Path,
        session_id: str,
        client: FileClient | None,
        sink: UpdateSink,
        buffers: BufferSource | None = None,
    ) -> None:
        self.disk = DiskApplier(root)
        self.root = root
        self.session_id = session_id
        self.client = client  # None: the client has no fs.writeTextFile
        self.sink = sink
        self.buffers = buffers  # the client's fs/read_text_file, when it offers it

    async def current_text(self, target: ResolvedPath) -> str:
        """What the user sees: the client's buffer (fs/read_text_file), else the disk."""
        read = await read_buffer(self.buffers, target.absolute)
        if read.note:
            self.sink.send(
                update_agent_thought_text(f"agent-ls: {target.model_path}: {read.note}\n")
            )
        if read.text is not None:
            return read.text
        return await self.disk.current_text(target)

    async def apply(self, writes: Sequence[FileWrite]) -> None:
        for write in writes:
            absolute = write.target.absolute
            before = await asyncio.to_thread(read_bytes_or_none, absolute)
            old = before.decode("utf-8", errors="replace") if before is not None else None
            if old is not None and self.buffers is not None:  # the diff from what it showed
                old = (await read_buffer(self.buffers, absolute)).text or old
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
        except Exception as error:  # the client said no: the plan is rolled back
            refused = EditorRefused(relative, client_reason(error))
            self.sink.send(
                start_tool_call(
                    self.sink.next_id("edit"),
                    f"Edit {relative}",
                    kind="edit",
                    status="failed",
                    content=[tool_content(text_block(str(refused)))],
                    locations=[ToolCallLocation(path=str(absolute))],
                )
            )
            raise refused from None

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
