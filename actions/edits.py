"""Build the ``WorkspaceEdit`` of a set of file changes — pure, no I/O.

Each create/update becomes one whole-document ``TextDocumentEdit`` whose single ``TextEdit``
makes the buffer hold exactly the new content:
- the document's current text (open buffer, else ``FileChange.disk_text``) is replaced from
  (0,0) to the position just past its last character, counted in the client's position
  encoding (utf-16 by default, utf-8 or utf-32 when negotiated);
- a new or empty document uses the range (0,0)-(1,0): inserting "x\\n" at (0,0)-(0,0) into a
  fresh buffer gives "x\\n\\n" in Neovim, while (0,0)-(1,0) is exact in Neovim 0.7/0.12 and
  VS Code (tried in each).
The text document identifier carries the open buffer's version (``None`` when not open) so a
client rejects an edit computed against text the user has since changed.

A file that may not exist yet is preceded by ``CreateFile`` with ``overwrite=False,
ignoreIfExists=True`` (never clobbers: the following whole-document edit sets the content).
Deletions are ``DeleteFile`` with ``ignoreIfNotExists=True``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from lsprotocol import types

ChangeKind = Literal["create", "update", "delete"]
DocumentChange = types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile


@dataclass(frozen=True)
class FileChange:
    """One file of a plan: workspace-relative ``path``, its ``uri`` and the new content.

    ``disk_text`` is the file's current content on disk when it is *not* open in the editor
    (``None``: the file does not exist). It is needed to compute the replaced range.
    """

    path: str
    uri: str
    kind: ChangeKind
    content: str | None = None
    disk_text: str | None = None

    def __post_init__(self) -> None:
        if self.kind != "delete" and self.content is None:
            raise ValueError(f"{self.kind} of {self.path} needs content")


def build_workspace_edit(
    changes: Sequence[FileChange],
    open_documents: Mapping[str, tuple[int, str]],
    *,
    position_encoding: str = types.PositionEncodingKind.Utf16.value,
) -> types.WorkspaceEdit:
    """A ``WorkspaceEdit`` with ``documentChanges`` applying ``changes`` in order.

    ``open_documents`` maps the uri of each document open in the editor to its
    ``(version, text)``.
    """
    document_changes: list[DocumentChange] = []
    for change in changes:
        document_changes.extend(
            change_operations(change, open_documents.get(change.uri), position_encoding)
        )
    return types.WorkspaceEdit(document_changes=document_changes)


def change_operations(
    change: FileChange, open_document: tuple[int, str] | None, position_encoding: str
) -> list[DocumentChange]:
    """The operations of one file change: [CreateFile?, TextDocumentEdit] or [DeleteFile]."""
    if change.kind == "delete":
        removal = types.DeleteFileOptions(ignore_if_not_exists=True)
        return [types.DeleteFile(uri=change.uri, options=removal)]
    operations: list[DocumentChange] = []
    version, current = open_document if open_document else (None, change.disk_text)
    if change.kind == "create" or current is None:
        creation = types.CreateFileOptions(overwrite=False, ignore_if_exists=True)
        operations.append(types.CreateFile(uri=change.uri, options=creation))
    edit = types.TextEdit(
        range=whole_document_range(current, position_encoding),
        new_text=change.content or "",
    )
    identifier = types.OptionalVersionedTextDocumentIdentifier(uri=change.uri, version=version)
    operations.append(types.TextDocumentEdit(text_document=identifier, edits=[edit]))
    return operations


def whole_document_range(text: str | None, position_encoding: str) -> types.Range:
    """The range covering all of ``text``; (0,0)-(1,0) for a new or empty document."""
    start = types.Position(line=0, character=0)
    if not text:
        return types.Range(start=start, end=types.Position(line=1, character=0))
    return types.Range(start=start, end=end_position(text, position_encoding))


def end_position(text: str, position_encoding: str) -> types.Position:
    """The position just past the last character (LSP line breaks: \\n, \\r\\n, \\r)."""
    lines = text.count("\n") + text.count("\r") - text.count("\r\n")
    last_start = max(text.rfind("\n"), text.rfind("\r")) + 1
    return types.Position(line=lines, character=units(text[last_start:], position_encoding))


def units(text: str, position_encoding: str) -> int:
    """Length of ``text`` in code units of the position encoding."""
    if position_encoding == types.PositionEncodingKind.Utf8.value:
        return len(text.encode("utf-8", "surrogatepass"))
    if position_encoding == types.PositionEncodingKind.Utf32.value:
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2
