"""Edits in the editor: open buffers through workspace/applyEdit, then the disk (SPEC §7).

The mechanism (item 4 of the actions issue): the disk is the truth, the buffers follow.
- A file open in the editor with unsaved changes (buffer text differs from disk) is refused
  with a clear message: the user's work is never overwritten.
- A file open without unsaved changes first gets a version-checked whole-document
  TextDocumentEdit (or a DeleteFile) through workspace/applyEdit so the buffer shows the
  new content; if the client says no, nothing is written and the plan rolls back.
- Then the disk is written atomically (temp file + rename), for every file, open or not:
  Neovim and VS Code change only buffers on TextDocumentEdit and save nothing.
Editors send didChange for the edited buffer, sometimes after answering applyEdit: a buffer
we pushed counts as clean while it holds either the text before or after our edit.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types

from actions.apply import ApplyRefused, DiskApplier, FileWrite
from actions.checkpoints.types import FileState
from actions.diskio import read_bytes_or_none
from actions.edits import ChangeKind, FileChange, build_workspace_edit
from actions.paths import ResolvedPath
from server.lsp import AgentLanguageServer

log = logging.getLogger(__name__)


class EditorApplier:
    def __init__(self, ls: AgentLanguageServer, root: Path, *, sync_any: bool = False) -> None:
        """`sync_any`: `sync` may update every open buffer (undo/redo, whose conflict check
        read the buffers); otherwise only the buffers this applier edited (plan rollback)."""
        self.ls = ls
        self.disk = DiskApplier(root)
        self.sync_any = sync_any
        self.pushed: dict[str, tuple[str, str]] = {}  # uri -> (text before, text after)

    def _can_apply(self) -> bool:
        workspace = self.ls.client_capabilities.workspace
        return bool(workspace and workspace.apply_edit)

    def _open_document(self, uri: str) -> tuple[int, str] | None:
        document = self.ls.workspace.text_documents.get(uri)
        if document is None:
            return None
        return (document.version or 0, document.source)

    async def _caught_up(self, uri: str) -> tuple[int, str] | None:
        """The open document, after waiting briefly for the didChange of our last edit."""
        document = self._open_document(uri)
        before, after = self.pushed.get(uri, (None, None))
        if document is None or before is None or document[1] != before or before == after:
            return document
        changed = self.ls.document_changed

        async def arrived() -> None:
            async with changed:
                await changed.wait_for(lambda: self._open_document(uri) != document)

        try:
            await asyncio.wait_for(arrived(), timeout=2)
        except TimeoutError:
            log.warning("no didChange for %s after our edit; using its last known version", uri)
        return self._open_document(uri)

    def _check_saved(self, write: FileWrite, buffer: str) -> None:
        disk = read_bytes_or_none(write.target.absolute)
        disk_text = disk.decode("utf-8", "replace") if disk is not None else None
        pushed = self.pushed.get(write.target.absolute.as_uri())
        if buffer == disk_text or (pushed is not None and buffer in pushed):
            return
        raise ApplyRefused(
            write.target.model_path,
            "is open in the editor with unsaved changes; save or revert it, then ask again",
        )

    async def current_text(self, target: ResolvedPath) -> str:
        """The open buffer's text (what the user sees), else the disk's."""
        document = await self._caught_up(target.absolute.as_uri())
        if document is not None:
            return document[1]
        return await self.disk.current_text(target)

    async def apply(self, writes: Sequence[FileWrite]) -> None:
        changes: list[FileChange] = []
        opened: dict[str, tuple[int, str]] = {}
        for write in writes:
            uri = write.target.absolute.as_uri()
            document = await self._caught_up(uri)
            if document is None:
                continue
            self._check_saved(write, document[1])
            opened[uri] = document
            kind: ChangeKind = "delete" if write.content is None else "update"
            changes.append(FileChange(write.relative, uri, kind, write.content))
        if changes and self._can_apply():
            await self._push(changes, opened)
        await self.disk.apply(writes)

    async def _push(self, changes: list[FileChange], opened: dict[str, tuple[int, str]]) -> None:
        edit = build_workspace_edit(
            changes, opened, position_encoding=self.ls.workspace.position_encoding or "utf-16"
        )
        result = await self.ls.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=edit, label="agent-ls")
        )
        if not result.applied:
            reason = result.failure_reason or "the editor did not apply the edit"
            raise ApplyRefused(", ".join(c.path for c in changes), reason)
        for change in changes:
            self.pushed[change.uri] = (opened[change.uri][1], change.content or "")

    def _tell_stale_buffers(self, paths: list[str], reason: str) -> None:
        """The disk was restored but the editor kept the old text in its buffers: saving them
        would write it back. The user must know, not only the log."""
        names = ", ".join(paths)
        self.ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Error,
                message=(
                    f"agent-ls restored {names} on disk, but the editor refused to update the "
                    f"open buffer(s) ({reason}). They still show other text: reload them from "
                    "disk (Neovim :e!, VS Code 'Revert File') before saving."
                ),
            )
        )

    async def sync(self, states: Sequence[FileState]) -> None:
        """Disk holds `states` again: update the open buffers that show something else."""
        changes: list[FileChange] = []
        opened: dict[str, tuple[int, str]] = {}
        for state in states:
            uri = (self.disk.root / state.path).as_uri()
            document = self._open_document(uri)
            text = state.content.decode("utf-8", "replace") if state.content is not None else None
            if document is None or document[1] == text:
                continue
            if not self.sync_any and uri not in self.pushed:
                continue  # a buffer we never touched keeps the user's text
            opened[uri] = document
            kind: ChangeKind = "delete" if text is None else "update"
            changes.append(FileChange(state.path, uri, kind, text))
        if changes and self._can_apply():
            try:
                await self._push(changes, opened)
            except ApplyRefused as exc:
                log.warning("could not update open buffers after restoring files: %s", exc)
                self._tell_stale_buffers([change.path for change in changes], exc.reason)
