"""Edits in the editor: open buffers through workspace/applyEdit, then the disk (SPEC §7).

The mechanism (item 4 of the actions issue): the disk is the truth, the buffers follow.
- A file open in the editor with unsaved changes (buffer text differs from disk) is refused
  with a clear message: the user's work is never overwritten.
- A file open without unsaved changes first gets a version-checked whole-document
  TextDocumentEdit (or a DeleteFile) through workspace/applyEdit so the buffer shows the
  new content; if the client says no, nothing is written and the plan rolls back.
- Then the disk is written atomically (temp file + rename), for every file, open or not:
  Neovim and VS Code change only buffers on TextDocumentEdit and save nothing.
The edited buffer is then modified with the disk's text; LSP has no request to save or
reload it, so each client of ours settles it (VS Code saves it: saveEdited.ts; the Neovim
plugin marks it unmodified: edits.lua), else the editor warns at its next look at the file
that it changed on disk (Vim's W12).
Editors send didChange for the edited buffer, sometimes after answering applyEdit: a buffer
we pushed counts as clean while it holds either the text before or after our edit.

The applier is also the turn's `BufferSource` (actions.buffers): read_file shows the model an
open buffer as the editor holds it, unsaved changes included, as search/replace matching does.

The applier sees the editor through `Editor` (open buffers, applyEdit, didChange): `LspEditor`
is the LSP client of the server; the in-process tests drive the applier with their own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from lsprotocol import types

from actions.apply import ApplyRefused, DiskApplier, EditorRefused, FileWrite
from actions.checkpoints.types import FileState
from actions.diskio import read_bytes_or_none
from actions.edits import ChangeKind, FileChange, build_workspace_edit
from actions.paths import ResolvedPath
from server.lsp import AgentLanguageServer

log = logging.getLogger(__name__)


class Editor(Protocol):
    """What the applier needs from the editor."""

    @property
    def can_apply_edit(self) -> bool:
        """Whether the editor takes `workspace/applyEdit` (else only the disk is written)."""
        ...

    @property
    def position_encoding(self) -> str: ...

    @property
    def document_changed(self) -> asyncio.Condition:
        """Notified after every didChange."""
        ...

    def open_document(self, uri: str) -> tuple[int, str] | None:
        """(version, text) of the open buffer of `uri`; None when it is not open."""
        ...

    async def apply_edit(self, edit: types.WorkspaceEdit) -> types.ApplyWorkspaceEditResult: ...

    def show_error(self, message: str) -> None:
        """Tell the user (window/showMessage), not only the log."""
        ...


class LspEditor:
    """The LSP client as the applier's editor."""

    def __init__(self, ls: AgentLanguageServer) -> None:
        self.ls = ls

    @property
    def can_apply_edit(self) -> bool:
        return self.ls.state.client.apply_edit

    @property
    def position_encoding(self) -> str:
        return self.ls.workspace.position_encoding or "utf-16"

    @property
    def document_changed(self) -> asyncio.Condition:
        return self.ls.document_changed

    def open_document(self, uri: str) -> tuple[int, str] | None:
        document = self.ls.workspace.text_documents.get(uri)
        return None if document is None else (document.version or 0, document.source)

    async def apply_edit(self, edit: types.WorkspaceEdit) -> types.ApplyWorkspaceEditResult:
        params = types.ApplyWorkspaceEditParams(edit=edit, label="agent-ls")
        return await self.ls.workspace_apply_edit_async(params)

    def show_error(self, message: str) -> None:
        self.ls.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Error, message=message)
        )


class EditorApplier:
    def __init__(
        self,
        editor: Editor,
        root: Path,
        *,
        sync_any: bool = False,
        folders: Mapping[str, Path] | None = None,
    ) -> None:
        """`sync_any`: `sync` may update every open buffer (undo/redo, whose conflict check
        read the buffers); otherwise only the buffers this applier edited (plan rollback).
        `folders`: the folders of a multi-root workspace by name; `sync`'s paths are then
        qualified by folder name (``frontend/src/app.ts``)."""
        self.editor = editor
        self.disk = DiskApplier(root)
        self.folders = dict(folders or {})
        self.sync_any = sync_any
        self.pushed: dict[str, tuple[str, str]] = {}  # uri -> (text before, text after)

    def _can_apply(self) -> bool:
        return self.editor.can_apply_edit

    def _open_document(self, uri: str) -> tuple[int, str] | None:
        return self.editor.open_document(uri)

    async def _caught_up(self, uri: str) -> tuple[int, str] | None:
        """The open document, after waiting briefly for the didChange of our last edit."""
        document = self._open_document(uri)
        before, after = self.pushed.get(uri, (None, None))
        if document is None or before is None or document[1] != before or before == after:
            return document
        changed = self.editor.document_changed

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

    async def buffer_text(self, path: Path) -> str | None:
        """The open buffer of `path` (unsaved changes included), None when it is not open:
        the editor's documents as the turn's BufferSource (read_file shows them)."""
        document = await self._caught_up(path.as_uri())
        return None if document is None else document[1]

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
            changes, opened, position_encoding=self.editor.position_encoding
        )
        result = await self.editor.apply_edit(edit)
        if not result.applied:
            raise EditorRefused(", ".join(c.path for c in changes), result.failure_reason or "")
        for change in changes:
            self.pushed[change.uri] = (opened[change.uri][1], change.content or "")

    def _tell_stale_buffers(self, paths: list[str], reason: str) -> None:
        """The disk was restored but the editor kept the old text in its buffers: saving them
        would write it back. The user must know, not only the log."""
        names = ", ".join(paths)
        self.editor.show_error(
            f"agent-ls restored {names} on disk, but the editor refused to update the "
            f"open buffer(s) ({reason}). They still show other text: reload them from "
            "disk (Neovim :e!, VS Code 'Revert File') before saving."
        )

    def _locate(self, path: str) -> Path:
        """The file a restored state names (folder-qualified in a multi-root workspace)."""
        name, _, rest = path.partition("/")
        if self.folders and name in self.folders and rest:
            return self.folders[name] / rest
        return self.disk.root / path

    async def sync(self, states: Sequence[FileState]) -> None:
        """Disk holds `states` again: update the open buffers that show something else."""
        changes: list[FileChange] = []
        opened: dict[str, tuple[int, str]] = {}
        for state in states:
            uri = self._locate(state.path).as_uri()
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
