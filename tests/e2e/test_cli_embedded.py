"""`make demo-local`'s chat: `agent-ls chat` with no configuration answers with the embedded model.

A real process, the real model (skipped only where llama_cpp is not importable), the demo's
own task (examples/demo-task.txt) on a copy of examples/hello. Slow: a few replies of the
135M model on the CPU.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from server.providers.local import llama_installed

pytestmark = pytest.mark.skipif(not llama_installed(), reason="llama_cpp is not importable")

AGENT_LS = str(Path(sys.executable).parent / "agent-ls")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_demo_task_gets_a_visible_answer_from_the_embedded_model(tmp_path: Path) -> None:
    workspace = tmp_path / "hello"
    shutil.copytree(EXAMPLES / "hello", workspace)
    task = (EXAMPLES / "demo-task.txt").read_text().strip()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")}
    done = subprocess.run(
        [AGENT_LS, "chat", "--workspace", str(workspace), task],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert "embedded model" in done.stderr
    assert done.stdout.strip(), "exit 0 with nothing printed"
    # The first step of the turn looks at the workspace (the grammar allows only list_files);
    # what a 135M model then answers is often beside the point (README: not a coding model),
    # but never the system prompt's example, and never after a search it cannot use.
    steps = [line for line in done.stderr.splitlines() if line.startswith("agent-ls: tool ")]
    assert steps[0] in ("agent-ls: tool list_files {}", 'agent-ls: tool list_files {"path": "/"}')
    assert not any(
        s.startswith(("agent-ls: tool search_", "agent-ls: tool list_files {")) for s in steps[2:]
    )
    assert "(your answer to the user" not in done.stdout
    assert "invalid" not in done.stderr  # the grammar never let a refused document through
