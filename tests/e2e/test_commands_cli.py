"""`run_command` through `agent-ls chat`: a real process, a real shell, the fake LLM scripting
the model. Consent in the terminal: --allow-commands, Deny without a terminal."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.e2e.conversations import doc, tool
from tests.e2e.test_cli_chat import AGENT_LS, cli_env, run_chat
from tests.fakellm import FakeLLM


def answer(text: str) -> str:
    return doc(action="text_response", text_response=text)


def git_repo(path: Path) -> Path:
    path.mkdir(exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    (path / "app.py").write_text("print('hi')\n")
    return path


def test_a_command_runs_with_allow_commands_and_the_model_reads_its_output(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    root = git_repo(tmp_path / "ws")
    fakellm.set_script(
        {"replies": [tool("run_command", command="echo out; echo err >&2; exit 3"), answer("ok")]}
    )
    done = run_chat(fakellm, "--workspace", str(root), "--allow-commands", "run it")
    assert done.returncode == 0, done.stderr
    seen = fakellm.requests[-1].user_message
    assert "exit code 3" in seen
    assert "out\nerr" in seen
    assert "out\nerr" in done.stderr  # streamed to the terminal as it ran


def test_without_a_terminal_a_command_is_denied_and_the_flag_named(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    root = git_repo(tmp_path / "ws")
    fakellm.set_script({"replies": [tool("run_command", command="touch made.txt"), answer("ok")]})
    done = run_chat(fakellm, "--workspace", str(root), "make a file")
    assert done.returncode == 0, done.stderr
    assert not (root / "made.txt").exists()
    assert "--allow-commands" in done.stderr
    seen = fakellm.requests[-1].user_message
    assert "not run" in seen
    assert "do not run the same command again" in seen


def test_the_provider_key_is_not_in_the_command_environment(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    root = git_repo(tmp_path / "ws")
    fakellm.set_script({"replies": [tool("run_command", command="env"), answer("ok")]})
    key = "sk-commands-9d8e7f6a5b4c"
    done = subprocess.run(
        [AGENT_LS, "chat", "--workspace", str(root), "--allow-commands", "env please"],
        env=cli_env(fakellm, AGENT_LS_API_KEY=key, MY_OWN_SETTING="kept-value"),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    seen = fakellm.requests[-1].user_message
    assert "MY_OWN_SETTING=kept-value" in seen
    assert "AGENT_LS_API_KEY" not in seen
    assert key not in seen


def test_commands_off_refuses_the_call(fakellm: FakeLLM, tmp_path: Path) -> None:
    root = git_repo(tmp_path / "ws")
    fakellm.set_script({"replies": [tool("run_command", command="touch made.txt"), answer("ok")]})
    done = run_chat(fakellm, "--workspace", str(root), "make a file", AGENT_LS_COMMANDS="off")
    assert done.returncode == 0, done.stderr
    assert not (root / "made.txt").exists()
    assert "run_command" not in str(fakellm.requests[0].body)  # not offered
    assert "run_command" in fakellm.requests[-1].user_message  # the call was refused by name


def test_a_file_a_command_writes_is_undone_by_agent_ls_undo(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    root = git_repo(tmp_path / "ws")
    script = "echo changed > app.py; echo new > made.txt"
    fakellm.set_script({"replies": [tool("run_command", command=script), answer("done")]})
    env = {"AGENT_LS_CHECKPOINT_DIR": str(tmp_path / "store")}
    done = run_chat(fakellm, "--workspace", str(root), "--allow-commands", "change", **env)
    assert done.returncode == 0, done.stderr
    assert (root / "app.py").read_text() == "changed\n"
    assert "files changed (one undo step)" in fakellm.requests[-1].user_message
    undo = subprocess.run(
        [AGENT_LS, "undo", "--workspace", str(root)],
        env=cli_env(fakellm, **env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert undo.returncode == 0, undo.stderr
    assert (root / "app.py").read_text() == "print('hi')\n"
    assert not (root / "made.txt").exists()


def test_doctor_states_the_command_policy(fakellm: FakeLLM, tmp_path: Path) -> None:
    root = git_repo(tmp_path / "ws")
    args = ("doctor", "--no-check", "--workspace", str(root))
    done = subprocess.run(
        [AGENT_LS, *args],
        env=cli_env(fakellm),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert "commands:  asks before each line; time limit 120 s" in done.stdout
    off = subprocess.run(
        [AGENT_LS, *args, "--json"],
        env=cli_env(fakellm, AGENT_LS_COMMANDS="allow"),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    listed = json.loads(off.stdout)["commands"]
    assert listed == {"mode": "allow", "allowList": [], "timeout": 120.0, "offered": True}
