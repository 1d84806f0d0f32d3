"""`agent-ls chat` in the terminal with the anthropic, ollama and cli providers."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakecli import command
from tests.fakellm import FakeLLM

AGENT_LS = str(Path(sys.executable).parent / "agent-ls")
SECRET = "sk-ant-cli-93b2"


def run_chat(
    workspace: Path, *args: str, cwd: Path | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_LS_", "ANTHROPIC"))}
    return subprocess.run(
        [AGENT_LS, "chat", "--workspace", str(workspace), *args],
        env=environ | env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def plan_document(path: str, content: str) -> str:
    document = {
        "action": "start_multi_file",
        "plan": {"description": "Add a greeting file", "files_to_modify": [path]},
        "first_file": {"action": "create_file", "file": {"path": path, "content": content}},
    }
    return "```json\n" + json.dumps(document) + "\n```"


@pytest.mark.parametrize("provider", ["anthropic", "ollama"])
def test_a_plan_from_the_model_is_applied_to_the_workspace(provider: str, tmp_path: Path) -> None:
    script = {"replies": [plan_document("greeting.txt", "hi there\n"), "Created greeting.txt."]}
    with FakeLLM(script) as llm:
        done = run_chat(
            tmp_path,
            "--provider",
            provider,
            "--base-url",
            llm.url,
            "--model",
            "fake",
            "add a greeting",
            ANTHROPIC_API_KEY=SECRET,
        )
        requests = llm.requests
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "greeting.txt").read_text() == "hi there\n"
    assert done.stdout.strip().endswith("Created greeting.txt.")
    assert len(requests) == 2
    assert SECRET not in done.stdout + done.stderr
    if provider == "anthropic":
        assert requests[0].headers["x-api-key"] == SECRET


def test_cli_agent_answers_in_the_terminal(tmp_path: Path) -> None:
    argv = shlex.join(command("success"))
    done = run_chat(
        tmp_path, "--provider", "cli", "fix the bug", cwd=tmp_path, AGENT_LS_CLI_COMMAND=argv
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Let me look at the workspace.Done: fix the bug\n"
    assert (tmp_path / "fakecli.txt").read_text() == "fix the bug"


def test_cli_agent_plan_mode_shows_the_plan(tmp_path: Path) -> None:
    argv = shlex.join(command("plan"))
    done = run_chat(tmp_path, "--provider", "cli", "split utils.py", AGENT_LS_CLI_COMMAND=argv)
    assert done.returncode == 0, done.stderr
    assert "Plan (proposed, nothing applied):" in done.stdout
    assert "2. split utils.py" in done.stdout


def test_cli_agent_error_is_one_clear_line(tmp_path: Path) -> None:
    argv = shlex.join(command("error"))
    done = run_chat(tmp_path, "--provider", "cli", "loop forever", AGENT_LS_CLI_COMMAND=argv)
    assert done.returncode == 1
    assert "provider cli failed" in done.stderr
    assert "error_max_turns" in done.stderr


def test_files_the_cli_agent_writes_are_undoable(tmp_path: Path) -> None:
    (tmp_path / "hello.py").write_text("print('hello')\n")
    (tmp_path / "old.txt").write_text("obsolete\n")
    (tmp_path / "big.bin").write_bytes(b"\0" * 1000)
    argv = shlex.join(command("success"))
    done = run_chat(
        tmp_path,
        "--provider",
        "cli",
        "fix the bug",
        cwd=tmp_path,
        AGENT_LS_CLI_COMMAND=argv,
        FAKECLI_EDIT="hello.py",
        FAKECLI_DELETE="old.txt",
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "hello.py").read_text() == "edited by the agent\n"
    listed = subprocess.run(
        [AGENT_LS, "checkpoints", "--workspace", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    (entry,) = json.loads(listed.stdout)
    assert entry["description"] == "cli agent: fix the bug"
    assert sorted(entry["files"]) == ["fakecli.txt", "hello.py", "old.txt"]
    undone = subprocess.run(
        [AGENT_LS, "undo", "--workspace", str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert undone.returncode == 0, undone.stderr
    assert (tmp_path / "hello.py").read_text() == "print('hello')\n"
    assert (tmp_path / "old.txt").read_text() == "obsolete\n"
    assert not (tmp_path / "fakecli.txt").exists()
    assert (tmp_path / "big.bin").read_bytes() == b"\0" * 1000
