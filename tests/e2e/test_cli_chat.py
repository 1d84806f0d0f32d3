"""`agent-ls chat` in the terminal: a real process against the fake LLM."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conversations import (
    FULL_CONVERSATION,
    NEW_APP,
    NEW_MODULE,
    doc,
    seed_project,
    tool,
    tree,
)
from tests.fakellm import FakeLLM

AGENT_LS = str(Path(sys.executable).parent / "agent-ls")
SECRET = "sk-test-7f3a9c1e5b"
DEAD_URL = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there


def cli_env(llm: FakeLLM, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")}
    env.update(AGENT_LS_BASE_URL=llm.base_url_openai, AGENT_LS_MODEL="fake", **extra)
    return env


def run_chat(llm: FakeLLM, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENT_LS, "chat", *args],
        env=cli_env(llm, **env),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_chat_prints_the_reply_and_exits_0(fakellm: FakeLLM, tmp_path: Path) -> None:
    fakellm.set_script({"replies": ["Hello, terminal user."]})
    done = run_chat(fakellm, "--workspace", str(tmp_path), "hi there")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello, terminal user.\n"
    assert fakellm.requests[-1].user_message.startswith("hi there")


def test_chat_streams_before_the_reply_is_complete(fakellm: FakeLLM, tmp_path: Path) -> None:
    fakellm.set_script({"replies": [{"content": "abcdefgh" * 30, "chunk_size": 8, "delay_ms": 30}]})
    with subprocess.Popen(
        [AGENT_LS, "chat", "--workspace", str(tmp_path), "slowly"],
        env=cli_env(fakellm),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    ) as proc:
        assert proc.stdout is not None
        first = proc.stdout.read(8)
        assert first == b"abcdefgh"
        assert proc.poll() is None, "the first delta should print while the reply still streams"
        rest = proc.stdout.read()
        assert proc.wait(timeout=30) == 0
    assert (first + rest).decode() == "abcdefgh" * 30 + "\n"


def test_json_prints_the_final_result(fakellm: FakeLLM, tmp_path: Path) -> None:
    fakellm.set_script({"replies": ["A JSON answer."]})
    done = run_chat(fakellm, "--workspace", str(tmp_path), "--json", "q")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["text"] == "A JSON answer."
    assert result["sessionId"]
    assert result["blocks"][0]["type"] == "text"


def test_flags_override_the_environment(fakellm: FakeLLM, tmp_path: Path) -> None:
    done = run_chat(fakellm, "--workspace", str(tmp_path), "--model", "from-flag", "q")
    assert done.returncode == 0, done.stderr
    assert fakellm.requests[-1].body["model"] == "from-flag"


def test_provider_failure_is_one_clear_line_and_a_non_zero_exit(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    fakellm.set_script({"replies": [{"fault": "500"}]})
    done = run_chat(fakellm, "--workspace", str(tmp_path), "hello")
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "openai" in lines[0]
    assert "HTTP 500" in lines[0]
    assert "Hint:" in lines[0]


def test_unreachable_provider_names_the_url(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")}
    done = subprocess.run(
        [
            AGENT_LS,
            "chat",
            "--workspace",
            str(tmp_path),
            "--base-url",
            "http://127.0.0.1:9/v1",
            "q",
        ],
        env={**env, "AGENT_LS_MODEL": "x"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "127.0.0.1:9" in done.stderr


@pytest.mark.parametrize("fault", ["401", "ok"])
def test_api_key_is_sent_but_never_printed_or_logged(
    fakellm: FakeLLM, tmp_path: Path, fault: str
) -> None:
    reply = {"fault": "500", "status": 401} if fault == "401" else f"echo {SECRET}?"
    fakellm.set_script({"replies": [reply]})
    done = run_chat(
        fakellm,
        "--workspace",
        str(tmp_path),
        "hello",
        AGENT_LS_API_KEY=SECRET,
    )
    assert fakellm.requests[-1].headers.get("authorization") == f"Bearer {SECRET}"
    assert SECRET not in done.stderr
    if fault == "401":
        assert done.returncode == 1


def test_debug_logging_never_shows_the_key(fakellm: FakeLLM, tmp_path: Path) -> None:
    done = subprocess.run(
        [AGENT_LS, "--log-level", "DEBUG", "chat", "--workspace", str(tmp_path), "hi"],
        env=cli_env(fakellm, AGENT_LS_API_KEY=SECRET),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stderr
    assert SECRET not in done.stdout


def test_missing_workspace_is_a_usage_error(fakellm: FakeLLM, tmp_path: Path) -> None:
    done = run_chat(fakellm, "--workspace", str(tmp_path / "nope"), "hi")
    assert done.returncode == 2
    assert "does not exist" in done.stderr


def test_cli_plan_is_applied_on_disk_and_undone_and_redone_from_the_terminal(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    seed_project(workspace)
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / "untracked.md").write_text("mine\n")
    before = tree(workspace)
    fakellm.set_script({"replies": FULL_CONVERSATION})

    done = run_chat(fakellm, "--workspace", str(workspace), "Add a greeting module")
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("Done: greet() lives in src/new.py.")
    assert "create_file src/new.py" in done.stderr  # steps are reported on stderr
    after = tree(workspace)
    assert after["src/new.py"] == NEW_MODULE
    assert after["src/app.py"] == NEW_APP
    assert "old.txt" not in after

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [AGENT_LS, *args, "--workspace", str(workspace)],
            capture_output=True,
            text=True,
            timeout=60,
        )

    listed = cli("checkpoints", "--json")
    assert json.loads(listed.stdout)[0]["description"] == "Add a greeting module and use it"
    assert cli("undo").returncode == 0
    assert tree(workspace) == before
    assert cli("redo").returncode == 0
    assert tree(workspace) == after
    assert cli("redo").returncode == 1  # nothing left to redo: a clear refusal


@pytest.mark.parametrize("allowed", ["", ".env"], ids=["denied", "allowed"])
def test_secret_files_follow_the_environment_allow_list(tmp_path: Path, allowed: str) -> None:
    """The terminal has no editor settings: AGENT_LS_ALLOW_SECRET_FILES lets the model read a
    secret-looking file, as it does for ACP and the editors; without it the file is refused."""
    (tmp_path / ".env").write_text("API_KEY=sk-test-9\n")
    script = {
        "replies": [tool("read_file", path=".env"), doc(action="text_response", text_response="ok")]
    }
    env = {"AGENT_LS_ALLOW_SECRET_FILES": allowed} if allowed else {}
    with FakeLLM(script) as llm:
        done = run_chat(llm, "--workspace", str(tmp_path), "read .env", **env)
        sent = json.dumps(llm.requests[1].body)
    assert done.returncode == 0, done.stderr
    assert ("sk-test-9" in sent) is bool(allowed)
    assert ("secret deny list" in sent) is not bool(allowed)


def test_a_whitelisting_gitignore_lets_a_plan_write_the_files_git_keeps(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    """`*` then `!*/`: every folder re-included, so src/new.py is not ignored (git agrees)
    and the checkpoint store snapshots it instead of refusing the plan."""
    workspace = tmp_path / "ws"
    seed_project(workspace)
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / ".gitignore").write_text("*\n!*/\n!*.py\n!*.txt\n")
    kept = subprocess.run(["git", "check-ignore", "-q", "src/new.py"], cwd=workspace, check=False)
    assert kept.returncode == 1  # git: not ignored
    before = tree(workspace)
    fakellm.set_script({"replies": FULL_CONVERSATION})

    done = run_chat(fakellm, "--workspace", str(workspace), "Add a greeting module")
    assert done.returncode == 0, done.stderr
    assert tree(workspace)["src/new.py"] == NEW_MODULE
    undone = subprocess.run(
        [AGENT_LS, "undo", "--workspace", str(workspace)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert undone.returncode == 0, undone.stderr
    assert tree(workspace) == before
