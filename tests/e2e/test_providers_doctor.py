"""`agent-ls doctor` as a real process: which provider, why, and whether it answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from server.__main__ import build_parser
from server.resolve import LOCAL_PROBE_ENV, OLLAMA_PROBE_ENV, OPENAI_PROBE_ENV
from tests.fakecli import command
from tests.fakellm import FakeLLM

DEAD = "http://127.0.0.1:9"
AGENT_LS = str(Path(sys.executable).parent / "agent-ls")
# `agent-ls doctor`, or the same command registered here until server/__main__.py lists it.
LAUNCHER = """
import sys
from server.__main__ import build_parser
from server.commands import doctor
from server.logs import setup_logging
parser = build_parser()
sub = next(a for a in parser._actions if a.dest == "command")
doctor.register(sub)
args = parser.parse_args(sys.argv[1:])
setup_logging(args.log_level)
sys.exit(args.func(args))
"""


def doctor_argv() -> list[str]:
    if "doctor" in build_parser().format_help():
        return [AGENT_LS, "doctor"]
    return [sys.executable, "-c", LAUNCHER, "doctor"]


def run_doctor(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")}
    environ |= {OLLAMA_PROBE_ENV: DEAD, OPENAI_PROBE_ENV: DEAD, LOCAL_PROBE_ENV: "off"} | env
    return subprocess.run(
        [*doctor_argv(), *args],
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def report(done: subprocess.CompletedProcess[str]) -> Any:
    return json.loads(done.stdout)


def test_detected_server_is_named_with_the_reason_and_answers(tmp_path: Path) -> None:
    with FakeLLM({"model": "qwen2.5-coder", "replies": ["pong"]}) as llm:
        url = llm.url
        done = run_doctor("--workspace", str(tmp_path), **{OPENAI_PROBE_ENV: url})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "provider:  openai"
    assert "model:     qwen2.5-coder" in lines
    assert f"base URL:  {url}/v1" in lines
    assert any(line.startswith("why:") and "OpenAI-compatible" in line for line in lines)
    assert any(line.startswith("answers:   yes") for line in lines)


def test_an_unreachable_configured_provider_exits_1(tmp_path: Path) -> None:
    done = run_doctor("--provider", "ollama", "--base-url", DEAD, "--model", "m", "--json")
    assert done.returncode == 1
    data = report(done)
    assert (data["provider"], data["reachable"]) == ("ollama", False)
    assert "agentLs.provider" in data["reason"]
    assert "ollama serve" in data["detail"]


def test_nothing_found_exits_1_and_explains_how_to_configure(tmp_path: Path) -> None:
    done = run_doctor()
    assert done.returncode == 1
    assert "provider:  (none)" in done.stdout
    assert "pip install 'agent-ls[local]'" in done.stdout
    assert "AGENT_LS_PROVIDER" in done.stdout


def test_cli_provider_is_checked_without_running_the_agent(tmp_path: Path) -> None:
    argv = command("success")
    done = run_doctor(
        "--workspace",
        str(tmp_path),
        "--json",
        AGENT_LS_PROVIDER="cli",
        AGENT_LS_CLI_COMMAND=" ".join(argv),
    )
    assert done.returncode == 0, done.stderr
    data = report(done)
    assert data["provider"] == "cli"
    assert data["reachable"] is True
    assert "not run" in data["detail"]
    assert not (tmp_path / "fakecli.txt").exists()


def test_no_check_sends_nothing(tmp_path: Path) -> None:
    with FakeLLM({"model": "llama3.2:1b", "replies": ["pong"]}) as ollama:
        done = run_doctor("--no-check", "--json", **{OLLAMA_PROBE_ENV: ollama.url})
        paths = [r.path for r in ollama.requests]
    assert done.returncode == 0, done.stderr
    assert report(done)["reachable"] is None
    assert paths == ["/api/tags"]
