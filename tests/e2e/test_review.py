"""Review mode (`agentLs.review: "on"`): a plan is staged, nothing touches disk or buffers;
accept one file -> only it is written (one undo step); reject another with a reason -> the
next LLM request carries it; a file changed since staging is refused by name; the pending
plan's files get Accept / Reject code actions. VS Code and Neovim capability sets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.e2e.conftest import chat, command
from tests.e2e.conversations import (
    FULL_CONVERSATION,
    NEW_APP,
    NEW_MODULE,
    SEED_FILES,
    doc,
    tree,
)
from tests.fakellm import FakeLLM, last_user_message


@pytest.fixture
def project(review_project: Path) -> Path:
    return review_project


async def test_staged_plan_accept_one_reject_one_undo(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    before = tree(project)
    reply = "I see; I will not touch app.py."
    fakellm.set_script(
        {"replies": [*FULL_CONVERSATION, doc(action="text_response", text_response=reply)]}
    )
    app_uri = client.editor.open(project / "src" / "app.py")  # type: ignore[attr-defined]

    result = await chat(client, "Add a greeting module")

    plan = result["plan"]
    assert plan["state"] == "pending"
    assert [(f["path"], f["op"], f["state"]) for f in plan["files"]] == [
        ("src/new.py", "create", "pending"),
        ("src/app.py", "update", "pending"),
        ("old.txt", "delete", "pending"),
    ]
    assert "checkpointId" not in result
    assert tree(project) == before  # nothing on disk
    assert client.editor.edits == []  # type: ignore[attr-defined]  # nothing in buffers
    kinds = [p["kind"] for p in client.chat.items]  # type: ignore[attr-defined]
    assert "review" in kinds

    accepted = await command(
        client, "agent.accept", {"planId": plan["planId"], "files": ["src/new.py"]}
    )
    assert accepted["checkpointId"]
    assert tree(project) == {**before, "src/new.py": NEW_MODULE}
    states = {f["path"]: f["state"] for f in accepted["files"]}
    assert states == {"src/new.py": "accepted", "src/app.py": "pending", "old.txt": "pending"}

    rejected = await command(
        client,
        "agent.reject",
        {"planId": plan["planId"], "files": ["src/app.py"], "reason": "keep print"},
    )
    assert {f["path"]: f["state"] for f in rejected["files"]}["src/app.py"] == "rejected"
    assert client.editor.buffers[app_uri][1] == SEED_FILES["src/app.py"]  # type: ignore[attr-defined]

    await chat(client, "ok?", sessionId=result["sessionId"])
    sent = last_user_message(fakellm.requests[-1])
    assert "rejected your change to src/app.py" in sent
    assert "keep print" in sent
    assert "old.txt" in sent  # still pending: the model is told not to resend it

    undone = await command(client, "agent.undo")
    assert [f["path"] for f in undone["files"]] == ["src/new.py"]
    assert tree(project) == before


async def test_changed_file_is_refused_by_name_and_code_actions_offer_review(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    fakellm.set_script({"replies": FULL_CONVERSATION})
    result = await chat(client, "Add a greeting module")
    plan_id = result["plan"]["planId"]

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=(project / "src/app.py").as_uri()),
            range=types.Range(types.Position(0, 0), types.Position(0, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    titles = [a.title for a in actions or []]
    assert "Accept AI change to src/app.py" in titles
    assert "Reject AI change to src/app.py" in titles
    assert "Accept all AI changes of the plan (3 files)" in titles

    (project / "src" / "app.py").write_text("print('edited by hand')\n")  # another tool
    accepted = await command(client, "agent.accept", {"planId": plan_id})
    assert accepted["refused"] == ["src/app.py changed since the change was staged"]
    states = {f["path"]: f["state"] for f in accepted["files"]}
    assert states == {"src/new.py": "accepted", "src/app.py": "pending", "old.txt": "accepted"}
    assert (project / "src" / "app.py").read_text() == "print('edited by hand')\n"
    assert (project / "src" / "new.py").read_text() == NEW_MODULE
    assert not (project / "old.txt").exists()

    with pytest.raises(JsonRpcException, match="unknown plan 'nope'"):
        await command(client, "agent.accept", {"planId": "nope"})
    with pytest.raises(JsonRpcException, match="was already accepted"):
        await command(client, "agent.accept", {"planId": plan_id, "files": ["src/new.py"]})
    assert NEW_APP not in (project / "src" / "app.py").read_text()


async def test_staged_content_is_what_accept_would_write(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    fakellm.set_script({"replies": FULL_CONVERSATION})
    result = await chat(client, "Add a greeting module")
    plan_id = result["plan"]["planId"]

    async def staged(path: str) -> Any:
        return await command(client, "agent.stagedContent", {"planId": plan_id, "path": path})

    created = await staged("src/new.py")
    assert created == {
        "path": "src/new.py",
        "op": "create",
        "state": "pending",
        "content": NEW_MODULE,
    }
    assert await staged("old.txt") == {"path": "old.txt", "op": "delete", "state": "pending"}
    assert (await staged("src/app.py"))["content"] == NEW_APP
    assert (project / "src" / "app.py").read_text() == SEED_FILES["src/app.py"]

    with pytest.raises(JsonRpcException, match=r"nope\.py is not a file of plan"):
        await staged("nope.py")
    with pytest.raises(JsonRpcException, match="unknown plan"):
        await command(client, "agent.stagedContent", {"planId": "zzz", "path": "src/new.py"})
