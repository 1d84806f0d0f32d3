"""Project rules through the other front ends: ACP (the official SDK's client; the first
attached file is where the user is), `agent-ls chat` (the current directory is) and
`agent-ls doctor`, which lists the rules files `chat` would read from the same place."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from acp import resource_link_block, text_block

from tests.e2e.test_acp import RecordingClient, acp_agent
from tests.e2e.test_cli_chat import AGENT_LS, cli_env
from tests.e2e.test_rules import system_prompt, user_folders, write
from tests.fakellm import FakeLLM


def project(tmp_path: Path) -> Path:
    """A workspace with root and nested rules, and the user's own in tmp_path/config."""
    root = tmp_path / "ws"
    write(root / "AGENTS.md", "ROOT-RULE\n")
    write(root / "pkg/CLAUDE.md", "PKG-RULE\n")
    write(root / "pkg/mod.py", "x = 1\n")
    write(tmp_path / "config/agent-ls/AGENTS.md", "USER-RULE\n")
    return root


async def test_acp_rules_of_the_attached_files_folders(tmp_path: Path) -> None:
    root = project(tmp_path)
    with FakeLLM({"replies": ["one", "two"]}) as llm:
        async with acp_agent(llm, RecordingClient(), **user_folders(tmp_path)) as conn:
            session = await conn.new_session(cwd=str(root))
            await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
            plain = system_prompt(llm.requests[-1])
            mod = root / "pkg/mod.py"
            attached = [text_block("and this?"), resource_link_block("mod.py", mod.as_uri())]
            await conn.prompt(session_id=session.session_id, prompt=attached)
            nested = system_prompt(llm.requests[-1])
    user = tmp_path / "config/agent-ls/AGENTS.md"
    assert f"## {user}\nUSER-RULE" in plain
    assert "## /AGENTS.md\nROOT-RULE" in plain
    assert "PKG-RULE" not in plain
    assert "## /pkg/CLAUDE.md\nPKG-RULE" in nested
    assert nested.index("USER-RULE") < nested.index("ROOT-RULE") < nested.index("PKG-RULE")


def run_cli(llm: FakeLLM, cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`agent-ls ARGS` in `cwd`, the user's folders in `home` (see user_folders)."""
    return subprocess.run(
        [AGENT_LS, *args],
        env=cli_env(llm, **user_folders(home)),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_cli_chat_reads_the_rules_down_to_the_current_directory(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    root = project(tmp_path)
    at_root = run_cli(fakellm, root, tmp_path, "chat", "hi")
    assert at_root.returncode == 0, at_root.stderr
    plain = system_prompt(fakellm.requests[-1])
    assert "ROOT-RULE" in plain
    assert "USER-RULE" in plain
    assert "PKG-RULE" not in plain
    inside = run_cli(fakellm, root / "pkg", tmp_path, "chat", "--workspace", str(root), "hi")
    assert inside.returncode == 0, inside.stderr
    assert "## /pkg/CLAUDE.md\nPKG-RULE" in system_prompt(fakellm.requests[-1])


def test_doctor_lists_the_rules_files_and_a_cut(fakellm: FakeLLM, tmp_path: Path) -> None:
    root = project(tmp_path)
    write(root / "pkg/AGENTS.md", "P" * 40_000)
    config = tmp_path / "config"
    args = ("doctor", "--no-check", "--workspace", str(root))
    done = run_cli(fakellm, root / "pkg", tmp_path, *args)
    assert done.returncode == 0, done.stderr
    assert "rules:     3 file(s), capped at 32768 bytes in all" in done.stdout
    assert f"  - {config / 'agent-ls/AGENTS.md'} (10 bytes)" in done.stdout
    assert f"  - {root / 'AGENTS.md'} (10 bytes)" in done.stdout
    assert f"  - {root / 'pkg/AGENTS.md'} (CUT: 32748 of 40000 bytes included)" in done.stdout
    listed = json.loads(run_cli(fakellm, root / "pkg", tmp_path, *args, "--json").stdout)["rules"]
    assert listed["cut"] is True
    assert [f["shown"] for f in listed["files"]][1:] == ["/AGENTS.md", "/pkg/AGENTS.md"]


def test_doctor_caps_the_rules_lower_for_the_embedded_model(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    root = project(tmp_path)
    write(root / "AGENTS.md", "R" * 10_000)
    args = ("doctor", "--provider", "local", "--no-check", "--json", "--workspace", str(root))
    done = run_cli(fakellm, root, tmp_path, *args)
    listed = json.loads(done.stdout)["rules"]
    assert listed["limit"] == 4096
    assert [(f["bytes"], f["included"]) for f in listed["files"]] == [(10, 10), (10_000, 4086)]
