"""A real headless Neovim as the client: it applies agent-ls' edits with its own handlers."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conversations import FULL_CONVERSATION, NEW_APP, NEW_MODULE, seed_project
from tests.e2e.neovim import needs_neovim, run_neovim
from tests.fakellm import FakeLLM

SCRIPT = Path(__file__).with_name("nvim_chat.lua")

pytestmark = needs_neovim


def test_neovim_applies_a_whole_plan(fakellm: FakeLLM, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    seed_project(workspace)
    fakellm.set_script({"replies": FULL_CONVERSATION})

    seen = run_neovim(
        SCRIPT,
        tmp_path,
        workspace,
        fakellm,
        workspace / "src" / "app.py",
        MESSAGE="Add a greeting module",
    )

    assert seen["done"], seen
    assert seen.get("error") is None, seen
    assert seen["result"]["plan"]["applied"] == ["src/new.py", "src/app.py", "old.txt"]
    # Disk: every file of the plan, exactly.
    assert (workspace / "src" / "new.py").read_text() == NEW_MODULE
    assert (workspace / "src" / "app.py").read_text() == NEW_APP
    assert not (workspace / "old.txt").exists()
    # The open buffer shows the new content, applied by Neovim itself through applyEdit.
    assert seen["edits"] >= 1
    assert seen["buffer"] == NEW_APP
    assert "file_applied" in seen["progress"]
