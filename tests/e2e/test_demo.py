"""`make demo`: examples/demo.sh run as a user runs it, checked for what it shows.

A real bash, the real `agent-ls` processes, the replay server (tests/fakellm) on 127.0.0.1, a
real temporary copy of examples/hello. The test reads the screen: the recorded-replies notice,
the three-file plan applied as one checkpoint, the undo, the files on disk, the next steps.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HELLO = ROOT / "examples/hello"


def sections(screen: str) -> dict[str, str]:
    """The demo's screen cut at its `== title` lines: title (first words) -> body."""
    parts = re.split(r"^== (.*)$", screen, flags=re.MULTILINE)
    return {title: body for title, body in zip(parts[1::2], parts[2::2], strict=True)}


def files_shown(body: str) -> dict[str, str]:
    parts = re.split(r"^--- (.*)$", body.strip("\n"), flags=re.MULTILINE)
    return {name: text.strip("\n") for name, text in zip(parts[1::2], parts[2::2], strict=True)}


def run_demo() -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_LS_", "ANTHROPIC_"))}
    env["VENV"] = sys.prefix
    return subprocess.run(
        ["bash", str(ROOT / "examples/demo.sh")],
        cwd=ROOT / "examples",  # the script finds its own folder
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def test_the_demo_shows_a_three_file_plan_and_its_undo_on_real_files() -> None:
    done = run_demo()
    assert done.returncode == 0, done.stderr
    shown = sections(done.stdout)
    titles = list(shown)
    assert titles[0].startswith("agent-ls demo: the model's replies are a RECORDED conversation")
    before_title = next(t for t in titles if t.startswith("the workspace before ("))
    workspace = Path(before_title.removeprefix("the workspace before (").removesuffix(")"))
    original = {p.name: p.read_text().strip("\n") for p in HELLO.iterdir() if p.is_file()}
    assert files_shown(shown[before_title]) == original

    after = files_shown(shown["the workspace after"])
    assert "def greet" in after["greetings.py"]
    assert "from greetings import greet" in after["hello.py"]
    assert "TODO.txt" not in after

    checkpoint = shown["agent-ls checkpoints (the three-file plan is one undo step)"]
    assert len(re.findall(r"\bapplied\b", checkpoint)) == 1
    assert {"greetings.py", "hello.py", "TODO.txt"} <= set(checkpoint.split())

    assert "undid" in shown["agent-ls undo"]
    assert "3 file(s)" in shown["agent-ls undo"]
    assert files_shown(shown["the workspace after undo (as before the chat)"]) == original
    on_disk = {p.name: p.read_text().strip("\n") for p in workspace.iterdir() if p.is_file()}
    assert on_disk == original  # the screen tells the truth about the files

    assert titles[-2].startswith("next: agent-ls with your own model")
    assert "make demo-local" in shown[titles[-2]]
    assert "agent-ls acp" in shown[titles[-1]]
