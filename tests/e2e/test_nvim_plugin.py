"""The Neovim plugin (nvim-client/) driven in a real headless Neovim as a user would:
:AgentChat, a message typed at the prompt, the answer streamed into the chat buffer with the
tool calls and the plan, the files changed on disk and in the open buffer, :AgentUndo."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conversations import (
    FULL_CONVERSATION,
    NEW_APP,
    NEW_MODULE,
    SEED_FILES,
    seed_project,
    tree,
)
from tests.e2e.neovim import neovims, run_neovim
from tests.fakellm import FakeLLM

SCRIPT = Path(__file__).with_name("nvim_plugin.lua")
REVIEW_SCRIPT = Path(__file__).with_name("nvim_review.lua")
PLUGIN = Path(__file__).resolve().parents[2] / "nvim-client"


@pytest.mark.parametrize("nvim", neovims())
def test_chat_plan_and_undo_through_the_plugin(fakellm: FakeLLM, tmp_path: Path, nvim: str) -> None:
    workspace = seed_project(tmp_path / "ws")
    before = tree(workspace)
    fakellm.set_script({"replies": FULL_CONVERSATION})

    seen = run_neovim(
        SCRIPT,
        tmp_path,
        workspace,
        fakellm,
        workspace / "src" / "app.py",
        nvim=nvim,
        MESSAGE="Add a greeting module",
        PLUGIN_DIR=str(PLUGIN),
    )

    assert seen["attached"], seen  # autostart attached the server to the file buffer
    assert seen["chat_is_current"]
    assert seen["busy_after_enter"], "Enter at the prompt did not send the message"
    assert seen["finished"], seen
    chat = "\n".join(seen["chat"])
    assert "you> Add a greeting module" in chat
    assert "⚙ list_files" in chat
    assert "⚙ read_file" in chat
    assert "▶ plan: Add a greeting module and use it" in chat
    assert "✎ create_file src/new.py" in chat
    assert "✎ delete_file old.txt" in chat
    assert "Done: greet() lives in src/new.py." in chat
    assert seen["new_module_on_disk"] == NEW_MODULE
    assert seen["file_buffer"] == NEW_APP
    assert any("applied" in line for line in seen["qflist"])
    assert any("Add a greeting module and use it" in line for line in seen["qflist"])
    assert any(note.startswith("agent-ls: undid") for note in seen["notes"]), seen["notes"]
    assert tree(workspace) == before
    assert seen["after_undo_buffer"] == SEED_FILES["src/app.py"]
    health = "\n".join(seen["health"])
    assert "server command:" in health, health
    assert "provider openai, model fake" in health, health


@pytest.mark.parametrize("nvim", neovims())
def test_review_mode_plan_accepted_through_the_code_action(
    fakellm: FakeLLM, tmp_path: Path, nvim: str
) -> None:
    workspace = seed_project(tmp_path / "ws")
    fakellm.set_script({"replies": FULL_CONVERSATION})

    seen = run_neovim(
        REVIEW_SCRIPT,
        tmp_path,
        workspace,
        fakellm,
        workspace / "src" / "app.py",
        nvim=nvim,
        MESSAGE="Add a greeting module",
        PLUGIN_DIR=str(PLUGIN),
    )

    assert seen["finished"], seen
    assert seen["plan_state"] == "pending"
    assert seen["disk_before_accept"] == SEED_FILES["src/app.py"]  # staged, not written
    assert seen["picked"] == "Accept all AI changes of the plan (3 files)"
    assert seen["new_module"] == NEW_MODULE
    assert seen["app_on_disk"] == NEW_APP
    assert seen["app_buffer"] == NEW_APP
    assert not (workspace / "old.txt").exists()
