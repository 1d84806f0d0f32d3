"""What a command changes in a git repository with history, through `agent-ls chat` and
`agent-ls undo` as real processes (the fake LLM scripts the model): found from git's stat
cache, recorded as one undo step, restored exactly; secret and ignored files left out; the
user's index never written."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from tests.e2e.conversations import doc, tool
from tests.e2e.test_cli_chat import AGENT_LS, cli_env, run_chat
from tests.fakellm import FakeLLM

GIT_ID = ["-c", "user.email=u@example.com", "-c", "user.name=User", "-c", "commit.gpgsign=false"]


def git(repo: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", *GIT_ID, *args], cwd=repo, env=env, check=True, capture_output=True)


def files_of(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def test_a_command_in_a_repository_is_undone_exactly(fakellm: FakeLLM, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    for number in range(50):
        (root / "src" / f"mod{number}.py").write_text(f"value = {number}\n")
    (root / ".gitignore").write_text("build/\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    (root / "src/mod1.py").write_text("value = 'my own edit'\n")  # dirty before the command
    (root / "notes.txt").write_text("untracked\n")
    before = files_of(root)
    index = hashlib.sha256((root / ".git/index").read_bytes()).hexdigest()
    script = (
        "echo changed >> src/mod0.py; echo again >> src/mod1.py; rm src/mod2.py;"
        " echo new > src/new.py; echo K=1 > .env; mkdir build; echo o > build/out.o"
    )
    fakellm.set_script({"replies": [tool("run_command", command=script), answer("done")]})
    env = {"AGENT_LS_CHECKPOINT_DIR": str(tmp_path / "store")}
    done = run_chat(fakellm, "--workspace", str(root), "--allow-commands", "change", **env)
    assert done.returncode == 0, done.stderr
    note = "files changed (one undo step): src/mod0.py, src/mod1.py, src/mod2.py, src/new.py"
    assert note in fakellm.requests[-1].user_message
    assert "not undoable" not in done.stderr
    undo = subprocess.run(
        [AGENT_LS, "undo", "--workspace", str(root)],
        env=cli_env(fakellm, **env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert undo.returncode == 0, undo.stderr
    assert files_of(root) == {**before, ".env": b"K=1\n", "build/out.o": b"o\n"}
    assert hashlib.sha256((root / ".git/index").read_bytes()).hexdigest() == index


def answer(text: str) -> str:
    return doc(action="text_response", text_response=text)
