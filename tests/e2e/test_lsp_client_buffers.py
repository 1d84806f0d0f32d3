"""LSP: the model's reads see the editor's open buffers (the same `BufferSource` seam as
ACP's fs/read_text_file): read_file shows an open document's unsaved text."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from tests.e2e.conftest import chat
from tests.e2e.conversations import SEED_FILES, doc, seed_project, tool, tree
from tests.fakellm import FakeLLM, last_user_message

UNSAVED_APP = "print('v1')\nprint('unsaved work')\n"


@pytest.fixture
def project(client: LanguageClient) -> Path:
    root: Path = client.workspace_path  # type: ignore[attr-defined]
    seed_project(root)
    return root


async def test_read_file_sees_an_open_buffers_unsaved_text(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    client.editor.open(project / "src" / "app.py", text=UNSAVED_APP)  # type: ignore[attr-defined]
    answer = doc(action="text_response", text_response="Read.")
    fakellm.set_script(
        {"replies": [tool("read_file", paths=["/src/app.py", "/src/util.py"]), answer]}
    )
    await chat(client, "read app.py")
    result = last_user_message(fakellm.requests[1])
    assert "print('unsaved work')" in result  # the buffer, not the disk
    assert SEED_FILES["src/util.py"] in result  # not open: the disk
    assert tree(project)["src/app.py"] == SEED_FILES["src/app.py"]
