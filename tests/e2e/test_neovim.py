"""A real headless Neovim as the client: it applies agent-ls' edits with its own handlers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conversations import FULL_CONVERSATION, NEW_APP, NEW_MODULE
from tests.fakellm import FakeLLM

NVIM = shutil.which("nvim")
SCRIPT = Path(__file__).with_name("nvim_chat.lua")

pytestmark = pytest.mark.skipif(
    NVIM is None, reason="nvim is not installed (apt-get install neovim)"
)


def run_neovim(tmp_path: Path, workspace: Path, llm: FakeLLM, open_file: Path) -> dict:
    home = tmp_path / "home"
    home.mkdir()
    result_file = tmp_path / "result.json"
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "AGENT_LS_PYTHON": sys.executable,
        "WORKSPACE": str(workspace),
        "LLM_URL": llm.base_url_openai,
        "OPEN_FILE": str(open_file),
        "MESSAGE": "Add a greeting module",
        "RESULT_FILE": str(result_file),
    }
    done = subprocess.run(
        [NVIM or "nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {SCRIPT}"],
        env=env,
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result_file.exists(), f"nvim wrote no result: {done.stdout}\n{done.stderr}"
    return json.loads(result_file.read_text())


def test_neovim_applies_a_whole_plan(fakellm: FakeLLM, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("print('v1')\n")
    (workspace / "src" / "util.py").write_text("def helper():\n    return 1\n")
    (workspace / "old.txt").write_text("obsolete\n")
    fakellm.set_script({"replies": FULL_CONVERSATION})

    seen = run_neovim(tmp_path, workspace, fakellm, workspace / "src" / "app.py")

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
