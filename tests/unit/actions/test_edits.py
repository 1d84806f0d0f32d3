"""Pure edit building: applying the produced WorkspaceEdit yields exactly the new content."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from actions.edits import FileChange, build_workspace_edit, end_position

URI = "file:///ws/src/a.py"
EXAMPLES = 2000 if os.environ.get("AGENT_LS_LONG_PROPERTIES") else 200


def _offset(text: str, position: types.Position, encoding: str) -> int:
    """Code-point offset of an LSP position, clamped like VS Code (past the end -> the end)."""
    lines = text.splitlines(keepends=True) or [""]
    if text.endswith(("\n", "\r")):
        lines.append("")
    if position.line >= len(lines):
        return len(text)
    start = sum(len(line) for line in lines[: position.line])
    body = lines[position.line].rstrip("\r\n")
    units = 0
    for index, char in enumerate(body):
        if units >= position.character:
            return start + index
        if encoding == "utf-8":
            units += len(char.encode("utf-8"))
        elif encoding == "utf-16":
            units += 2 if ord(char) > 0xFFFF else 1
        else:
            units += 1
    return start + len(body)


def apply_vscode_like(text: str, edit: types.TextEdit, encoding: str) -> str:
    """A tiny reference applier with LSP position semantics and end clamping."""
    start = _offset(text, edit.range.start, encoding)
    end = _offset(text, edit.range.end, encoding)
    return text[:start] + edit.new_text + text[end:]


def apply_neovim_like(text: str, edit: types.TextEdit) -> str:
    """Neovim's line model: an end row past the buffer is clamped and marks an EOL edit,
    after which a trailing empty line is dropped; the file is written with a final newline."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    lines = lines or [""]
    end_row, end_col = edit.range.end.line, edit.range.end.character
    eol_edit = end_row >= len(lines)
    if eol_edit:
        end_row, end_col = len(lines) - 1, len(lines[-1])
    start_row, start_col = edit.range.start.line, edit.range.start.character
    before, after = lines[start_row][:start_col], lines[end_row][end_col:]
    replaced = (before + edit.new_text + after).split("\n")
    lines = lines[:start_row] + replaced + lines[end_row + 1 :]
    if eol_edit and len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return "\n".join(lines) + "\n"


def only_text_edit(edit: types.WorkspaceEdit) -> types.TextDocumentEdit:
    assert edit.document_changes is not None
    edits = [c for c in edit.document_changes if isinstance(c, types.TextDocumentEdit)]
    assert len(edits) == 1
    return edits[0]


CASES = [
    # (name, open document text, disk text, new content)
    ("new file", None, None, "print('hi')\n"),
    ("open empty buffer", "", None, "x\n"),
    ("open with trailing newline", "old\nlines\n", None, "new\n"),
    ("open without trailing newline", "old\nlast", None, "a\nb\nc"),
    ("crlf document", "a\r\nb\r\n", None, "c\r\n"),
    ("lone cr line breaks", "a\rb\rlast", None, "z"),
    ("astral characters", "x = '😀é'\ny = '𝕏'", None, "done\n"),
    ("to empty", "gone\n", None, ""),
    ("not open, on disk", None, "disk\ncontent 😀\n", "replaced\n"),
]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
@pytest.mark.parametrize(("name", "opened", "disk", "content"), CASES)
def test_whole_document_edit_gives_exact_content(
    name: str, opened: str | None, disk: str | None, content: str, encoding: str
) -> None:
    change = FileChange("src/a.py", URI, "update", content, disk_text=disk)
    documents = {URI: (7, opened)} if opened is not None else {}
    edit = build_workspace_edit([change], documents, position_encoding=encoding)
    text_edit = only_text_edit(edit)
    before = opened if opened is not None else (disk or "")
    assert apply_vscode_like(before, text_edit.edits[0], encoding) == content
    assert text_edit.text_document.version == (7 if opened is not None else None)


@pytest.mark.parametrize("content", ["x\n", "a\nb\n", "def f():\n    return 1\n"])
def test_new_buffer_range_is_exact_in_the_neovim_line_model(content: str) -> None:
    change = FileChange("new.py", URI, "create", content)
    text_edit = only_text_edit(build_workspace_edit([change], {}))
    assert text_edit.edits[0].range == types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=1, character=0)
    )
    assert apply_neovim_like("", text_edit.edits[0]) == content
    naive = types.TextEdit(
        range=types.Range(start=text_edit.edits[0].range.start, end=text_edit.edits[0].range.start),
        new_text=content,
    )
    assert apply_neovim_like("", naive) == content + "\n"


def test_existing_buffer_with_final_newline_is_exact_in_neovim_model() -> None:
    change = FileChange("a.py", URI, "update", "x\ny\n")
    text_edit = only_text_edit(build_workspace_edit([change], {URI: (3, "a\nb\nc\n")}))
    assert apply_neovim_like("a\nb\nc\n", text_edit.edits[0]) == "x\ny\n"


def test_encoding_matters_for_the_end_position() -> None:
    text = "é😀"
    assert end_position(text, "utf-16") == types.Position(line=0, character=3)
    assert end_position(text, "utf-8") == types.Position(line=0, character=6)
    assert end_position(text, "utf-32") == types.Position(line=0, character=2)
    change = FileChange("a", URI, "update", "new")
    mixed = "ab😀cd"
    wrong = only_text_edit(build_workspace_edit([change], {URI: (1, mixed)}))
    assert apply_vscode_like(mixed, wrong.edits[0], "utf-16") == "new"
    assert apply_vscode_like(mixed, wrong.edits[0], "utf-8") == "newcd"


def test_operations_order_and_options() -> None:
    changes = [
        FileChange("new.js", "file:///ws/new.js", "create", "n\n"),
        FileChange("open.js", "file:///ws/open.js", "update", "o\n"),
        FileChange("gone.js", "file:///ws/gone.js", "delete"),
        FileChange("missing.js", "file:///ws/missing.js", "update", "m\n"),
    ]
    edit = build_workspace_edit(changes, {"file:///ws/open.js": (12, "old\n")})
    ops = edit.document_changes
    assert ops is not None
    kinds = [type(op).__name__ for op in ops]
    assert kinds == [
        "CreateFile",
        "TextDocumentEdit",
        "TextDocumentEdit",
        "DeleteFile",
        "CreateFile",
        "TextDocumentEdit",
    ]
    create = ops[0]
    assert isinstance(create, types.CreateFile)
    assert create.uri == "file:///ws/new.js"
    assert create.options == types.CreateFileOptions(overwrite=False, ignore_if_exists=True)
    opened = ops[2]
    assert isinstance(opened, types.TextDocumentEdit)
    assert opened.text_document == types.OptionalVersionedTextDocumentIdentifier(
        uri="file:///ws/open.js", version=12
    )
    delete = ops[3]
    assert isinstance(delete, types.DeleteFile)
    assert delete.options == types.DeleteFileOptions(ignore_if_not_exists=True)
    assert edit.changes is None


def test_create_or_update_without_content_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="needs content"):
        FileChange("a", URI, "create", None)


_text = st.lists(st.sampled_from(["a", "é", "😀", "\n", "\r", "\r\n", "\t", " "])).map("".join)


@settings(max_examples=EXAMPLES)
@given(
    before=_text,
    after=_text,
    encoding=st.sampled_from(["utf-8", "utf-16", "utf-32"]),
)
def test_whole_document_edit_is_exact(before: str, after: str, encoding: str) -> None:
    uri = "file:///ws/f.txt"
    change = FileChange("f.txt", uri, "update", after)
    edit = build_workspace_edit([change], {uri: (1, before)}, position_encoding=encoding)
    assert apply_vscode_like(before, only_text_edit(edit).edits[0], encoding) == after
