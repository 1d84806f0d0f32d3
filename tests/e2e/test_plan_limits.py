"""Files a plan cannot write safely: over the checkpoint size cap, look-alike Unicode names.

Each is refused before anything is written, the model and the user are told which file and
why, and the rest of the plan goes on (SPEC: a refused file is an error back to the model).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.e2e.conftest import chat
from tests.e2e.conversations import FULL_CONVERSATION, doc, seed_project, tree
from tests.fakellm import FakeLLM

CAP = 5 * 2**20


@pytest.fixture
def project(client: LanguageClient) -> Path:
    root: Path = client.workspace_path  # type: ignore[attr-defined]
    seed_project(root)
    return root


def plan(first: dict[str, object], *files: str) -> str:
    return doc(
        action="start_multi_file",
        plan={"description": "big data", "files_to_modify": list(files)},
        first_file=first,
    )


def then(action: str, path: str, content: str) -> str:
    file = {"path": path, "content": content}
    return doc(action="continue_multi_file", next_file={"action": action, "file": file})


async def test_a_file_over_the_size_cap_is_refused_before_writing_and_the_plan_goes_on(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    huge = "x = 1\n" * (CAP // 6 + 100)
    fakellm.set_script(
        {
            "replies": [
                {
                    "content": plan(
                        {"action": "create_file", "file": {"path": "/data.py", "content": huge}},
                        "/data.py",
                        "/src/app.py",
                    ),
                    "chunk_size": 2**16,  # a model streams 5 MB in big pieces, not 4 bytes
                },
                then("update_file", "/src/app.py", "print('v2')\n"),
                doc(action="text_response", text_response="data.py was too big; app.py done."),
            ]
        }
    )
    result = await chat(client, "generate the data module")

    assert not (project / "data.py").exists()
    assert (project / "src" / "app.py").read_text() == "print('v2')\n"
    assert result["plan"]["applied"] == ["src/app.py"]
    assert result["plan"]["skipped"] == ["data.py"]
    told = fakellm.requests[1].body["messages"][-1]["content"]
    assert "/data.py was refused, nothing was written" in told
    assert "size cap" in told
    assert "5.0 MB" in told
    errors = [
        p["data"]
        for p in client.chat.items  # type: ignore[attr-defined]
        if p["kind"] == "error" and p["sessionId"] == result["sessionId"]
    ]
    assert [e["path"] for e in errors] == ["/data.py"]
    assert "size cap" in errors[0]["message"]
    # The plan is one undoable checkpoint: undo puts app.py back.
    await client.workspace_execute_command_async(types.ExecuteCommandParams(command="agent.undo"))
    assert (project / "src" / "app.py").read_text() == "print('v1')\n"


async def test_a_name_identical_on_screen_to_an_existing_file_is_that_file(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    nfc = unicodedata.normalize("NFC", "café.txt")
    nfd = unicodedata.normalize("NFD", "café.txt")
    new_nfd = unicodedata.normalize("NFD", "src/thé.py")
    assert nfc != nfd
    (project / nfc).write_text("menu\n")
    fakellm.set_script(
        {
            "replies": [
                plan({"action": "update_file", "file": {"path": nfd, "content": "menu 2\n"}}, nfd),
                then("create_file", new_nfd, "tea = 1\n"),
                doc(action="text_response", text_response="ok"),
            ]
        }
    )
    result = await chat(client, "edit the café file")
    after = tree(project)
    assert after[nfc] == "menu 2\n"  # the existing file, not a second café.txt beside it
    assert nfd not in after
    assert after[unicodedata.normalize("NFC", new_nfd)] == "tea = 1\n"  # new names: NFC
    assert new_nfd not in after
    assert result["plan"]["applied"] == [nfc, unicodedata.normalize("NFC", new_nfd)]


async def test_an_editor_refusing_the_rollback_edit_is_told_to_the_user(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    editor = client.editor  # type: ignore[attr-defined]
    app_uri = editor.open(project / "src" / "app.py")
    accept = editor.on_apply_edit

    def refuse_restoring(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        texts = [
            edit.new_text
            for change in params.edit.document_changes or []
            if isinstance(change, types.TextDocumentEdit)
            for edit in change.edits
        ]
        if "print('v1')\n" in texts:  # the rollback: this editor has the buffer locked
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason="buffer locked")
        return accept(params)

    editor.on_apply_edit = refuse_restoring
    fakellm.set_script({"replies": [FULL_CONVERSATION[2], FULL_CONVERSATION[3], {"fault": "500"}]})
    with pytest.raises(JsonRpcException, match="HTTP 500"):
        await chat(client, "Add a greeting module")

    assert (project / "src" / "app.py").read_text() == "print('v1')\n"  # disk restored
    assert editor.buffers[app_uri][1] != "print('v1')\n"  # the editor kept the plan's text
    shown = [m for m in client.messages if m.type == types.MessageType.Error]
    assert any("src/app.py" in m.message and "reload" in m.message for m in shown), shown
