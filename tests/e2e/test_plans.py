"""The agent loop end to end: tools, a whole multi-file plan, aborts and hostile paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

from tests.e2e.conftest import cancel, chat, start_chat
from tests.e2e.conversations import (
    FULL_CONVERSATION,
    NEW_APP,
    NEW_MODULE,
    doc,
    seed_project,
    tool,
    tree,
    tree_hash,
)
from tests.fakellm import FakeLLM, last_user_message


@pytest.fixture
def project(client: LanguageClient) -> Path:
    root: Path = client.workspace_path  # type: ignore[attr-defined]
    seed_project(root)
    return root


async def test_full_plan_lists_reads_creates_updates_deletes(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    fakellm.set_script({"replies": FULL_CONVERSATION})
    app_uri = client.editor.open(project / "src" / "app.py")  # type: ignore[attr-defined]
    old_uri = client.editor.open(project / "old.txt")  # type: ignore[attr-defined]

    result = await chat(client, "Add a greeting module")

    # Files on disk.
    assert tree(project) == {
        "src/app.py": NEW_APP,
        "src/new.py": NEW_MODULE,
        "src/util.py": "def helper():\n    return 1\n",
    }
    # Open buffers: the edits went through applyEdit, version-checked, whole document.
    buffers = client.editor.buffers  # type: ignore[attr-defined]
    assert buffers[app_uri][1] == NEW_APP
    assert old_uri not in buffers
    kinds = [
        type(c).__name__
        for e in client.editor.edits
        for c in e.edit.document_changes  # type: ignore[attr-defined]
    ]
    assert kinds == ["TextDocumentEdit", "DeleteFile"]
    app_edit = client.editor.edits[0].edit.document_changes[0]  # type: ignore[attr-defined]
    assert app_edit.text_document.version == 1

    # What reached the model: tool results, then plan progress after each file.
    bodies = [r.body["messages"] for r in fakellm.requests]
    assert len(bodies) == 6
    listing = bodies[1][-1]["content"]
    assert "src/app.py" in listing
    assert "old.txt" in listing
    read = bodies[2][-1]["content"]
    assert "print('v1')" in read
    assert "def helper()" in read
    assert "src/app.py" in bodies[3][-1]["content"]  # remaining after the first file
    assert "complete" in bodies[5][-1]["content"].lower()

    # Progress notifications, in order.
    steps = [p["kind"] for p in client.chat.items if p["sessionId"] == result["sessionId"]]  # type: ignore[attr-defined]
    assert [k for k in steps if k != "text"] == [
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "plan",
        "file_applied",
        "file_applied",
        "file_applied",
    ]
    assert "Here is my next step." in "".join(client.chat.texts(result["sessionId"]))  # type: ignore[attr-defined]

    # The final result.
    assert result["text"].endswith("Done: greet() lives in src/new.py.")
    assert result["plan"]["applied"] == ["src/new.py", "src/app.py", "old.txt"]
    assert result["plan"]["skipped"] == []
    assert result["checkpointId"]


async def test_provider_failure_mid_plan_rolls_everything_back(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    before = tree_hash(project)
    fakellm.set_script({"replies": [FULL_CONVERSATION[2], FULL_CONVERSATION[3], {"fault": "500"}]})
    with pytest.raises(JsonRpcException) as failure:
        await chat(client, "Add a greeting module")
    assert "HTTP 500" in str(failure.value)
    assert tree_hash(project) == before


async def test_editor_rejecting_an_edit_rolls_the_plan_back(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    """applyEdit answered applied=false: the plan is rolled back, the turn ends normally and
    the model, told which write the editor refused and why, answers the user."""
    before = tree_hash(project)
    app_uri = client.editor.open(project / "src" / "app.py")  # type: ignore[attr-defined]
    client.editor.reject.add(app_uri)  # type: ignore[attr-defined]
    answer = doc(action="text_response", text_response="The editor refused src/app.py.")
    fakellm.set_script({"replies": [*FULL_CONVERSATION[2:4], answer]})
    result = await chat(client, "Add a greeting module")
    assert tree_hash(project) == before
    assert result["text"].endswith("The editor refused src/app.py.")
    assert result.get("plan") is None
    assert result.get("checkpointId") is None
    told = last_user_message(fakellm.requests[-1])
    assert f"the editor refused to write src/app.py: {app_uri} is locked" in told
    assert "the plan was rolled back (1 file(s) restored)" in told


async def test_unsaved_editor_changes_are_never_overwritten(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    before = tree_hash(project)
    client.editor.open(project / "src" / "app.py", text="print('my unsaved work')\n")  # type: ignore[attr-defined]
    answer = doc(action="text_response", text_response="Save app.py first.")
    fakellm.set_script({"replies": [*FULL_CONVERSATION[2:4], answer]})
    result = await chat(client, "Add a greeting module")
    assert result["text"].endswith("Save app.py first.")
    assert "unsaved changes" in last_user_message(fakellm.requests[-1])
    assert tree_hash(project) == before
    assert (
        client.editor.buffers[(project / "src" / "app.py").as_uri()][1]
        == "print('my unsaved work')\n"
    )  # type: ignore[attr-defined]


async def test_hostile_paths_are_refused_and_reported_to_the_model(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    outside = project.parent / "escape.txt"
    fakellm.set_script(
        {
            "replies": [
                tool("read_file", path="../../../../etc/passwd"),
                doc(
                    action="start_multi_file",
                    plan={"description": "escape", "files_to_modify": ["../escape.txt"]},
                    first_file={
                        "action": "create_file",
                        "file": {"path": "../escape.txt", "content": "x"},
                    },
                ),
                doc(
                    action="start_multi_file",
                    plan={"description": "sneak", "files_to_modify": ["/ok.txt"]},
                    first_file={
                        "action": "create_file",
                        "file": {"path": "/.git/config", "content": "x"},
                    },
                ),
                doc(action="text_response", text_response="I cannot do that."),
            ]
        }
    )
    result = await chat(client, "read the passwords")
    assert not outside.exists()
    assert not (project / ".git").exists()
    bodies = [r.body["messages"][-1]["content"] for r in fakellm.requests[1:]]
    assert "Error from read_file" in bodies[0]
    assert "refused" in bodies[1].lower()
    assert "refused" in bodies[2].lower()
    assert result["text"] == "I cannot do that."
    assert tree(project) == {
        "src/app.py": "print('v1')\n",
        "src/util.py": "def helper():\n    return 1\n",
        "old.txt": "obsolete\n",
    }


async def test_invalid_documents_get_precise_errors_then_the_turn_fails(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    bad = doc(
        action="start_multi_file",
        plan={"description": "x", "files_to_modify": ["/a"]},
        first_file={"action": "delete_file", "file": {"path": "/a"}},
    )
    fakellm.set_script({"replies": [bad]})
    with pytest.raises(JsonRpcException) as failure:
        await chat(client, "do it")
    assert "invalid documents" in str(failure.value)
    feedback = fakellm.requests[1].body["messages"][-1]["content"]
    assert "first_file" in feedback
    assert "create_file" in feedback
    assert "update_file" in feedback
    assert len(fakellm.requests) == 4  # the first try and 3 retries


async def test_truncated_document_is_never_applied(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    cut = FULL_CONVERSATION[2][:-60]
    fakellm.set_script({"replies": [cut, doc(action="text_response", text_response="ok")]})
    result = await chat(client, "do it")
    assert not (project / "src" / "new.py").exists()
    assert "cut off" in fakellm.requests[1].body["messages"][-1]["content"]
    assert result["text"].endswith("ok")


async def test_native_openai_tool_calls_run_and_reach_the_model_as_tool_messages(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    client.set_configuration({"toolProtocol": "native"}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    fakellm.set_script(
        {
            "replies": [
                {
                    "content": "",
                    "tool_calls": [{"name": "read_file", "arguments": {"path": "/src/app.py"}}],
                },
                doc(action="text_response", text_response="app.py prints v1."),
            ]
        }
    )
    result = await chat(client, "what does app.py print?")
    assert result["text"] == "app.py prints v1."
    first, second = (r.body for r in fakellm.requests)
    assert [t["function"]["name"] for t in first["tools"]] == [
        "list_files",
        "read_file",
        "search_files",
        "search_docs",
        "find_symbol",
        "run_command",
    ]
    call = second["messages"][-2]
    assert call["role"] == "assistant"
    assert call["tool_calls"][0]["function"]["name"] == "read_file"
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["tool_call_id"] == call["tool_calls"][0]["id"]
    assert "print('v1')" in tool_message["content"]


async def test_xml_tool_calls_are_run(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    client.set_configuration({"toolProtocol": "xml"}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    xml_call = '<tool_call>{"name": "read_file", "arguments": {"path": "/src/util.py"}}</tool_call>'
    fakellm.set_script({"replies": [xml_call, doc(action="text_response", text_response="ok")]})
    result = await chat(client, "read util")
    assert result["text"] == "ok"
    assert "<tool_call>" in fakellm.requests[0].body["messages"][0]["content"]
    assert "def helper()" in fakellm.requests[1].body["messages"][-1]["content"]


async def test_cancelling_mid_plan_rolls_the_plan_back(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    before = tree_hash(project)
    slow_text = {"content": "x" * 2000, "chunk_size": 2, "delay_ms": 10}
    fakellm.set_script({"replies": [FULL_CONVERSATION[2], slow_text]})
    request = start_chat(client, "Add a greeting module", "plan-to-cancel")
    await client.chat.wait_for(lambda items: any(p["kind"] == "file_applied" for p in items))  # type: ignore[attr-defined]
    assert (project / "src" / "new.py").exists()
    await client.chat.wait_for(lambda items: items[-1]["kind"] == "text")  # type: ignore[attr-defined]
    cancel(client, "plan-to-cancel")
    with pytest.raises(JsonRpcException) as cancelled:
        await request
    assert cancelled.value.code == JsonRpcRequestCancelled.CODE
    await client.chat.wait_for(
        lambda items: any("rolledBack" in (p.get("data") or {}) for p in items)
    )  # type: ignore[attr-defined]
    assert tree_hash(project) == before


async def test_a_cancelled_plan_leaves_the_planned_files_it_did_not_write_alone(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    """Only what the plan wrote is rolled back: old.txt, planned but not written yet and
    saved by the user meanwhile, keeps the user's text; one file is reported restored."""
    slow_text = {"content": "x" * 2000, "chunk_size": 2, "delay_ms": 10}
    fakellm.set_script({"replies": [FULL_CONVERSATION[2], slow_text]})
    request = start_chat(client, "Add a greeting module", "plan-to-cancel")
    await client.chat.wait_for(lambda items: any(p["kind"] == "file_applied" for p in items))  # type: ignore[attr-defined]
    assert (project / "src" / "new.py").exists()
    (project / "old.txt").write_text("the user's own text\n")
    await client.chat.wait_for(lambda items: items[-1]["kind"] == "text")  # type: ignore[attr-defined]
    cancel(client, "plan-to-cancel")
    with pytest.raises(JsonRpcException):
        await request
    await client.chat.wait_for(
        lambda items: any("rolledBack" in (p.get("data") or {}) for p in items)
    )  # type: ignore[attr-defined]
    [rolled] = [p for p in client.chat.items if "rolledBack" in (p.get("data") or {})]  # type: ignore[attr-defined]
    assert rolled["data"]["rolledBack"] == ["src/new.py"]
    assert "(1 file(s) restored)" in rolled["data"]["message"]
    assert not (project / "src" / "new.py").exists()
    assert (project / "old.txt").read_text() == "the user's own text\n"


async def test_turn_limit_ends_the_turn_with_a_clear_error(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    client.set_configuration({"maxTurns": 3}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    fakellm.set_script({"replies": [tool("list_files")]})
    with pytest.raises(JsonRpcException) as failure:
        await chat(client, "loop forever")
    assert "maxTurns=3" in str(failure.value)
    assert len(fakellm.requests) == 3


async def test_text_response_mid_plan_ends_it_and_reports_skipped_files(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    stop = doc(action="text_response", text_response="Stopping after the first file.")
    fakellm.set_script({"replies": [FULL_CONVERSATION[2], stop]})
    result = await chat(client, "Add a greeting module")
    assert result["plan"]["applied"] == ["src/new.py"]
    assert result["plan"]["skipped"] == ["src/app.py", "old.txt"]
    assert (project / "src" / "new.py").read_text() == NEW_MODULE
    assert (project / "src" / "app.py").read_text() == "print('v1')\n"
    plans = [p["data"] for p in client.chat.items if p["kind"] == "plan"]  # type: ignore[attr-defined]
    assert plans[-1]["skipped"] == ["src/app.py", "old.txt"]
    assert result["checkpointId"]  # the applied part is one undo step


async def test_same_open_file_edited_twice_when_did_change_arrives_late(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    client.editor.defer_did_change = True  # type: ignore[attr-defined]
    app_uri = client.editor.open(project / "src" / "app.py")  # type: ignore[attr-defined]
    second = "print('second version')\n"
    fakellm.set_script(
        {
            "replies": [
                FULL_CONVERSATION[2].replace("/src/new.py", "/src/app.py"),
                doc(
                    action="continue_multi_file",
                    next_file={
                        "action": "update_file",
                        "file": {"path": "/src/app.py", "content": second},
                    },
                ),
                doc(action="text_response", text_response="done"),
            ]
        }
    )
    result = await chat(client, "edit app.py twice")
    assert result["text"].endswith("done")
    assert (project / "src" / "app.py").read_text() == second
    assert client.editor.buffers[app_uri][1] == second  # type: ignore[attr-defined]
    versions = [e.edit.document_changes[-1].text_document.version for e in client.editor.edits]  # type: ignore[attr-defined]
    assert versions == [1, 2]  # the second edit waited for the late didChange


async def test_a_repeated_last_file_after_the_plan_completed_ends_the_turn(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    only = doc(
        action="start_multi_file",
        plan={"description": "notes", "files_to_modify": ["/notes.txt"]},
        first_file={
            "action": "create_file",
            "file": {"path": "/notes.txt", "content": "buy milk\n"},
        },
    )
    again = doc(
        action="continue_multi_file",
        next_file={
            "action": "create_file",
            "file": {"path": "/notes.txt", "content": "buy milk\n"},
        },
    )
    fakellm.set_script({"replies": [only, again]})  # small models repeat the last file forever
    result = await chat(client, "create notes.txt containing buy milk")
    assert (project / "notes.txt").read_text() == "buy milk\n"
    assert result["plan"]["applied"] == ["notes.txt"]
    assert result["checkpointId"]
    assert len(fakellm.requests) == 2
