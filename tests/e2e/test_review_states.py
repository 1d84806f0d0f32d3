"""Review mode's progress tells the truth (`agentLs.review: "on"`): while the plan is staged
no progress event calls a file applied — each file is `file_staged`, the plan's end-of-turn
progress names nothing applied, the `review` event lists every file pending — and the model
is told its files wait for the user's review, so its closing answer presents a proposal.
VS Code and Neovim capability sets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import LanguageClient

from tests.e2e.conftest import chat
from tests.e2e.conversations import FULL_CONVERSATION, doc, tree
from tests.fakellm import FakeLLM, last_user_message

PLANNED = ["src/new.py", "src/app.py", "old.txt"]


@pytest.fixture
def project(review_project: Path) -> Path:
    return review_project


def events(client: LanguageClient) -> list[tuple[str, Any]]:
    """Every progress event but text: (kind, data)."""
    items = client.chat.items  # type: ignore[attr-defined]
    return [(p["kind"], p.get("data")) for p in items if p["kind"] != "text"]


async def test_staged_files_are_reported_staged_and_the_model_hears_they_wait(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    before = tree(project)
    fakellm.set_script({"replies": FULL_CONVERSATION})

    result = await chat(client, "Add a greeting module")

    seen = events(client)
    kinds = [kind for kind, _ in seen]
    assert "file_applied" not in kinds
    staged = [(data["path"], data["action"]) for kind, data in seen if kind == "file_staged"]
    assert staged == [
        ("src/new.py", "create_file"),
        ("src/app.py", "update_file"),
        ("old.txt", "delete_file"),
    ]
    assert kinds[-1] == "review"
    review = seen[-1][1]
    assert [(f["path"], f["state"]) for f in review["files"]] == [(p, "pending") for p in PLANNED]
    assert result["plan"]["state"] == "pending"
    assert tree(project) == before

    told = last_user_message(fakellm.requests[-1])  # what the model answered "Done" to
    assert "Staged for the user's review" in told
    assert "not applied yet" in told
    assert "Applied:" not in told


async def test_a_plan_ended_early_names_nothing_applied(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    early = [*FULL_CONVERSATION[:4], doc(action="text_response", text_response="Enough.")]
    fakellm.set_script({"replies": early})

    result = await chat(client, "Add a greeting module")

    plans = [data for kind, data in events(client) if kind == "plan"]
    assert plans[-1]["skipped"] == ["old.txt"]
    assert "applied" not in plans[-1]  # staged, not applied
    assert "unplanned" not in plans[-1]
    states = [(f["path"], f["state"]) for f in result["plan"]["files"]]
    assert states == [("src/new.py", "pending"), ("src/app.py", "pending")]
