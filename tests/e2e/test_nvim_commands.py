"""The consent to the model's commands in the Neovim plugin, as a person meets it (#25): a real
Neovim (Debian's 0.7.2 and the wheel's 0.11) in a tmux pane; :AgentChat typed; the question
read off the screen (vim.ui.select: Neovim's own list, or an asynchronous picker); keys answer
it; the command ran or not (the file it creates); its output in the chat transcript."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e.conversations import doc, tool
from tests.e2e.neovim import neovims
from tests.fakellm import FakeLLM, last_user_message

PLUGIN = Path(__file__).resolve().parents[2] / "nvim-client"
INIT = Path(__file__).with_name("nvim_commands.lua")
TMUX = shutil.which("tmux")
WAIT = 60.0  # seconds a screen may take to show what is awaited before the test fails

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")

LINE = "echo from-nvim > ran.txt; echo out-line; printf 'no newline'"
RUN_SCRIPT = {
    "replies": [
        tool("run_command", command=LINE),
        doc(action="text_response", text_response="Ran it."),
    ]
}
QUESTION = f"agent-ls: run  {LINE}  in "


class Screen:
    """Neovim in a tmux pane of its own server (socket under the test's tmp dir)."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            [TMUX or "tmux", "-S", str(self.socket), *args],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
        return done.stdout

    def text(self) -> str:
        return self.tmux("capture-pane", "-p", "-J", "-t", "nvim")

    def keys(self, *keys: str) -> None:
        """Type `keys` (tmux key names: "Enter", "Escape"; other strings literally)."""
        for key in keys:
            if key in ("Enter", "Escape"):
                self.tmux("send-keys", "-t", "nvim", key)
            else:
                self.tmux("send-keys", "-t", "nvim", "-l", key)

    def wait_for(self, *wanted: str) -> str:
        """The screen once it shows every one of `wanted` (polled; fails after WAIT s)."""
        deadline = time.monotonic() + WAIT
        while True:
            screen = self.text()
            if all(w in screen for w in wanted):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen never showed {wanted!r}:\n{screen}")
            time.sleep(0.1)


@contextmanager
def neovim_in_tmux(
    nvim: str, tmp_path: Path, workspace: Path, llm: FakeLLM, **env: str
) -> Iterator[Screen]:
    home = tmp_path / "home"
    home.mkdir()
    environ = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "AGENT_LS_PYTHON": sys.executable,
        "PYTHONPATH": str(PLUGIN.parent),
        "LLM_URL": llm.base_url_openai,
        "PLUGIN_DIR": str(PLUGIN),
        "TERM": "xterm-256color",
        **env,
    }
    screen = Screen(tmp_path / "tmux.sock")
    tmux = [TMUX or "tmux", "-S", str(screen.socket), "-f", "/dev/null"]
    window = ["-s", "nvim", "-x", "220", "-y", "50", "-c", str(workspace)]
    command = [nvim, "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {INIT}"]
    subprocess.run(
        [*tmux, "new-session", "-d", *window, *command],
        env=environ,
        check=True,
        timeout=30,
    )
    try:
        yield screen
    finally:
        subprocess.run(
            [TMUX or "tmux", "-S", str(screen.socket), "kill-server"],
            capture_output=True,
            check=False,
            timeout=30,
        )


def project(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("print('hi')\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def ask(screen: Screen, message: str) -> str:
    """:AgentChat MESSAGE typed; the screen once the consent question shows."""
    screen.wait_for("~")  # Neovim is up (the empty buffer's filler lines)
    screen.keys(f":AgentChat {message}", "Enter")
    return screen.wait_for(QUESTION)


@pytest.mark.parametrize("nvim", neovims())
def test_run_chosen_in_the_list_runs_and_the_output_shows(tmp_path: Path, nvim: str) -> None:
    root = project(tmp_path)
    with FakeLLM(RUN_SCRIPT) as llm, neovim_in_tmux(nvim, tmp_path, root, llm) as screen:
        question = ask(screen, "Run the check")
        assert "1: Run" in question
        assert "2: Always allow" in question
        assert "3: Deny" in question
        assert str(root) in question  # the folder it runs in
        assert not (root / "ran.txt").exists()
        screen.keys("1", "Enter")
        chat = screen.wait_for("Ran it.")
        sent = last_user_message(llm.requests[-1])
    assert (root / "ran.txt").read_text() == "from-nvim\n"
    assert "⚑ Run" in chat
    assert "│ out-line" in chat
    assert "│ no newline" in chat
    assert "✓ run_command" in chat
    assert "out-line" in sent


@pytest.mark.parametrize("nvim", neovims())
@pytest.mark.parametrize("keys", [("3", "Enter"), ("Escape",)], ids=["deny", "escape"])
def test_deny_or_escape_runs_nothing(tmp_path: Path, nvim: str, keys: tuple[str, ...]) -> None:
    root = project(tmp_path)
    with FakeLLM(RUN_SCRIPT) as llm, neovim_in_tmux(nvim, tmp_path, root, llm) as screen:
        ask(screen, "Run the check")
        screen.keys(*keys)
        chat = screen.wait_for("Ran it.")
        sent = last_user_message(llm.requests[-1])
    assert not (root / "ran.txt").exists()
    assert "⚑ Deny" in chat
    assert "✗ run_command" in chat
    assert "denied" in sent


@pytest.mark.parametrize("nvim", neovims())
def test_always_allow_asks_once(tmp_path: Path, nvim: str) -> None:
    line = "echo again >> log.txt"
    script = {
        "replies": [
            tool("run_command", command=line),
            tool("run_command", command=line),
            doc(action="text_response", text_response="Twice."),
        ]
    }
    root = project(tmp_path)
    with FakeLLM(script) as llm, neovim_in_tmux(nvim, tmp_path, root, llm) as screen:
        screen.wait_for("~")
        screen.keys(":AgentChat Log twice", "Enter")
        screen.wait_for(f"agent-ls: run  {line}  in ")
        screen.keys("2", "Enter")
        chat = screen.wait_for("Twice.")  # a second question would hold the turn
    assert (root / "log.txt").read_text() == "again\nagain\n"
    assert chat.count("⚑ Always allow") == 1


@pytest.mark.parametrize("nvim", neovims())
def test_an_asynchronous_picker_takes_over(tmp_path: Path, nvim: str) -> None:
    """A picker that answers after vim.ui.select returned (as telescope does): on 0.11 it is
    the question (the request waits); on 0.7, which needs the answer at once, inputlist()
    asks instead."""
    root = project(tmp_path)
    with (
        FakeLLM(RUN_SCRIPT) as llm,
        neovim_in_tmux(nvim, tmp_path, root, llm, PICKER="1") as screen,
    ):
        question = ask(screen, "Run the check")
        if "PICKER " in question:
            assert "> Always allow (this exact line, for the rest of the session)" in question
            screen.keys("Enter")  # the cursor is on the first item: Run
        else:
            assert _version(nvim) < (0, 10), question
            assert "1: Run" in question
            screen.keys("1", "Enter")
        chat = screen.wait_for("Ran it.")
    assert (root / "ran.txt").read_text() == "from-nvim\n"
    assert "⚑ Run" in chat
    if _version(nvim) >= (0, 10):
        assert "PICKER " in question


def _version(nvim: str) -> tuple[int, int]:
    out = subprocess.run([nvim, "--version"], capture_output=True, text=True, check=True)
    major, minor = out.stdout.split()[1].lstrip("v").split(".")[:2]
    return int(major), int(minor)
