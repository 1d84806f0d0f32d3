"""Bad command lines, through the real `agent-ls` executable: one wording, exit 2, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from actions.checkpoints import CheckpointStore
from server.providers import PROVIDERS

AGENT_LS = str(Path(sys.executable).parent / "agent-ls")
HINT = "give an existing folder with --workspace DIR (default: the current folder)"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENT_LS, *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["--log-level", "FOO", "doctor", "--no-check"],
        ["doctor", "--no-check", "--log-level", "FOO"],
        ["serve", "--log-level", "loud"],
    ],
)
def test_a_bad_log_level_is_a_usage_error(args: list[str]) -> None:
    done = run(*args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "--log-level" in done.stderr
    assert "DEBUG" in done.stderr  # the valid choices are listed


@pytest.mark.parametrize("command", ["chat", "doctor", "undo", "redo", "checkpoints", "parse"])
def test_log_level_is_accepted_after_every_sub_command(command: str) -> None:
    done = run(command, "--log-level", "debug", "--help")
    assert done.returncode == 0, done.stderr
    assert "--log-level" in done.stdout


def test_doctor_refuses_an_unknown_provider(tmp_path: Path) -> None:
    done = run("doctor", "--provider", "bogus", "--no-check", "--workspace", str(tmp_path))
    assert done.returncode == 2
    assert "bogus" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", ["chat", "doctor"])
def test_help_lists_every_provider(command: str) -> None:
    done = run(command, "--help")
    for name in PROVIDERS:
        assert name in done.stdout


@pytest.mark.parametrize(
    "args",
    [["chat", "hi"], ["doctor", "--no-check"], ["undo"], ["redo"], ["checkpoints"]],
)
def test_a_missing_workspace_reads_the_same_for_every_command(
    args: list[str], tmp_path: Path
) -> None:
    missing = tmp_path / "nope"
    done = run(*args, "--workspace", str(missing))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"agent-ls: workspace {missing} does not exist", HINT]
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    done = run(*args, "--workspace", str(a_file))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"agent-ls: workspace {a_file} is not a folder", HINT]


@pytest.mark.parametrize("message", ["", "   ", "\n\t"])
def test_an_empty_chat_message_is_refused(message: str, tmp_path: Path) -> None:
    done = run("chat", "--workspace", str(tmp_path), message)
    assert done.returncode == 2
    assert "the chat message is empty" in done.stderr


def test_serve_tcp_says_where_it_listens() -> None:
    process = subprocess.Popen(
        [AGENT_LS, "serve", "--tcp", "--port", "0"],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert line.startswith("agent-ls: listening on 127.0.0.1:"), line
        assert int(line.rsplit(":", 1)[1]) > 0
    finally:
        process.terminate()
        assert process.wait(timeout=30) == 128 + 15  # SIGTERM: a clean stop


def test_an_undo_conflict_names_the_force_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_LS_CHECKPOINT_DIR", str(tmp_path / "stores"))  # child inherits
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("before\n")
    with CheckpointStore(root).begin_plan(
        description="edit", session_id="s1", paths=["a.txt"]
    ) as plan:
        plan.write("a.txt", b"after\n")
    (root / "a.txt").write_text("user typed\n")
    done = run("undo", "--workspace", str(root))
    assert done.returncode == 1
    assert "a.txt" in done.stderr
    assert "use --force to undo anyway" in done.stderr
    assert (root / "a.txt").read_text() == "user typed\n"
