"""`agent-ls chat` never exits 0 without something visible: real processes, the fake LLM."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fakellm import FakeLLM

AGENT_LS = str(Path(sys.executable).parent / "agent-ls")
NOTES = {"path": "notes.txt", "content": "buy milk\n"}
PLAN = json.dumps(
    {
        "action": "start_multi_file",
        "plan": {"description": "Write the notes", "files_to_modify": ["notes.txt"]},
        "first_file": {"action": "create_file", "file": NOTES},
    }
)
REPEAT = json.dumps(
    {"action": "continue_multi_file", "next_file": {"action": "create_file", "file": NOTES}}
)


def chat(llm: FakeLLM, workspace: Path, message: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")}
    env.update(AGENT_LS_BASE_URL=llm.base_url_openai, AGENT_LS_MODEL="fake")
    return subprocess.run(
        [AGENT_LS, "chat", "--workspace", str(workspace), message],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_a_blank_answer_is_a_failure_with_a_message(fakellm: FakeLLM, tmp_path: Path) -> None:
    blank = json.dumps({"action": "text_response", "text_response": "  \n "})
    fakellm.set_script({"replies": [blank]})
    done = chat(fakellm, tmp_path, "say nothing")
    assert done.returncode == 1
    assert done.stdout.strip() == ""
    assert "agent-ls: the model ended the turn without an answer" in done.stderr


def test_a_plan_ended_without_answer_text_is_summarised(fakellm: FakeLLM, tmp_path: Path) -> None:
    # The model applies its plan, then repeats the last file: the turn ends with no text.
    fakellm.set_script({"replies": [PLAN, REPEAT]})
    done = chat(fakellm, tmp_path, "write my notes")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "notes.txt").read_text() == "buy milk\n"
    assert done.stdout == (
        "Applied the plan 'Write the notes': notes.txt (agent-ls undo reverts it)\n"
    )
