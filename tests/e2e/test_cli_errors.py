"""Every bad input to every `agent-ls` command, through the real executable: stderr is exactly
one `agent-ls: <what>` line and at most one hint line (never a usage block, never a
traceback, never `error:`), the same wording for the same problem in every command, and the
documented exit code (2 usage error, 1 runtime failure; server/commands/errors.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

AGENT_LS = str(Path(sys.executable).parent / "agent-ls")
COMMANDS = [
    "serve",
    "chat",
    "parse",
    "parse-log",
    "undo",
    "redo",
    "checkpoints",
    "doctor",
    "index",
    "search",
    "acp",
    "sessions",
    "mcp",
]
# What a command needs besides the bad input (its positional argument).
NEEDS = {"chat": ["hi"], "search": ["q"], "mcp": ["list"]}
SUBCOMMAND = {"mcp": "mcp list"}  # where a sub-command's own option is refused
WORKSPACE_COMMANDS = [
    "chat",
    "doctor",
    "undo",
    "redo",
    "checkpoints",
    "index",
    "search",
    "sessions",
]
WORKSPACE_HINT = "give an existing folder with --workspace DIR (default: the current folder)"
INPUT_HINT = "give a readable file, or - for standard input"


def options_hint(command: str) -> str:
    return f"run 'agent-ls {command} --help' for the options"


ROOT_HINT = "run 'agent-ls --help' for the commands and options"


class Case(NamedTuple):
    args: list[str]
    stderr: list[str]
    code: int
    env: tuple[tuple[str, str], ...] = ()  # extra environment variables


def cases() -> dict[str, Case]:
    """`{missing}` (no such path), `{file}` (a file), `{dir}` (an empty folder) are filled in."""
    table: dict[str, Case] = {
        "unknown command": Case(
            ["bogus"],
            [
                "agent-ls: argument COMMAND: invalid choice: 'bogus' (choose from "
                + ", ".join(f"'{c}'" for c in COMMANDS)
                + ")",
                ROOT_HINT,
            ],
            2,
        ),
        "unknown root flag": Case(
            ["--bogus"], ["agent-ls: unrecognized arguments: --bogus", ROOT_HINT], 2
        ),
        "bad log level": Case(
            ["--log-level", "loud", "doctor"],
            [
                "agent-ls: argument --log-level: invalid choice: 'LOUD' (choose from "
                "'DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL')",
                ROOT_HINT,
            ],
            2,
        ),
    }
    for command in COMMANDS:
        table[f"{command}: unknown flag"] = Case(
            [command, *NEEDS.get(command, []), "--bogus"],
            ["agent-ls: unrecognized arguments: --bogus", options_hint(command)],
            2,
        )
        table[f"{command}: bad log level"] = Case(
            [command, *NEEDS.get(command, []), "--log-level", "loud"],
            [
                "agent-ls: argument --log-level: invalid choice: 'LOUD' (choose from "
                "'DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL')",
                options_hint(SUBCOMMAND.get(command, command)),
            ],
            2,
        )
    for command, name in (("chat", "message"), ("search", "query")):
        table[f"{command}: missing argument"] = Case(
            [command, "--workspace", "{dir}"],
            [f"agent-ls: the following arguments are required: {name}", options_hint(command)],
            2,
        )
    for command in WORKSPACE_COMMANDS:
        args = [command, *NEEDS.get(command, [])]
        table[f"{command}: workspace without a value"] = Case(
            [*args, "--workspace"],
            ["agent-ls: argument --workspace: expected one argument", options_hint(command)],
            2,
        )
        table[f"{command}: missing workspace"] = Case(
            [*args, "--workspace", "{missing}"],
            ["agent-ls: workspace {missing} does not exist", WORKSPACE_HINT],
            2,
        )
        table[f"{command}: file as workspace"] = Case(
            [*args, "--workspace", "{file}"],
            ["agent-ls: workspace {file} is not a folder", WORKSPACE_HINT],
            2,
        )
    for command in ("chat", "doctor"):
        table[f"{command}: bad provider"] = Case(
            [command, *NEEDS.get(command, []), "--provider", "bogus"],
            [
                "agent-ls: argument --provider: invalid choice: 'bogus' (choose from "
                "'openai', 'anthropic', 'ollama', 'local', 'cli')",
                options_hint(command),
            ],
            2,
        )
    for command in ("parse", "parse-log"):
        table[f"{command}: missing file"] = Case(
            [command, "{missing}"],
            ["agent-ls: cannot read {missing}: No such file or directory", INPUT_HINT],
            2,
        )
        table[f"{command}: folder as file"] = Case(
            [command, "{dir}"], ["agent-ls: cannot read {dir}: Is a directory", INPUT_HINT], 2
        )
    for command in ("index", "search"):
        table[f"{command}: bad index url"] = Case(
            [command, *NEEDS.get(command, []), "--workspace", "{dir}", "--index-url", "mysql://db"],
            [
                "agent-ls: setting agentLs.indexUrl (from command line): expected a "
                "postgresql:// URL, or empty for the embedded index (the scheme is 'mysql'), "
                "got 'mysql://db'; it is not used."
            ],
            2,
        )
    table |= {
        "chat: empty message": Case(
            ["chat", "--workspace", "{dir}", " "],
            ["agent-ls: the chat message is empty: say what you want done"],
            2,
        ),
        "search: empty query": Case(
            ["search", "--workspace", "{dir}", " "],
            ["agent-ls: the query is empty: say what to look for"],
            2,
        ),
        "search: --k not a number": Case(
            ["search", "q", "--k", "many"],
            ["agent-ls: argument --k: expected a whole number, got 'many'", options_hint("search")],
            2,
        ),
        "search: --k zero": Case(
            ["search", "q", "--k", "0"],
            ["agent-ls: argument --k: must be at least 1, got 0", options_hint("search")],
            2,
        ),
        "serve: --port not a number": Case(
            ["serve", "--tcp", "--port", "x"],
            ["agent-ls: argument --port: expected a port number, got 'x'", options_hint("serve")],
            2,
        ),
        "serve: --port out of range": Case(
            ["serve", "--tcp", "--port", "70000"],
            ["agent-ls: argument --port: must be 0 to 65535, got 70000", options_hint("serve")],
            2,
        ),
        "parse-log: bad environment": Case(
            ["parse-log", "-"],
            [
                "agent-ls: AGENT_LS_PARSER_TIMEOUT: expected a positive duration like 30s, "
                "500ms, 2m or 30, got 'forever'"
            ],
            2,
            (("AGENT_LS_PARSER_TIMEOUT", "forever"),),
        ),
        "undo: nothing to undo": Case(
            ["undo", "--workspace", "{dir}"], ["agent-ls: undo: nothing to undo"], 1
        ),
        "sessions: unknown id": Case(
            ["sessions", "--workspace", "{dir}", "--delete", "nope"],
            ["agent-ls: unknown session 'nope': no such conversation in this workspace"],
            1,
        ),
    }
    return table


CASES = cases()


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")}
    env.update(AGENT_LS_PROBE_OLLAMA_URL="off", AGENT_LS_PROBE_OPENAI_URL="off")
    return {**env, "AGENT_LS_PROBE_LOCAL": "off", **extra}


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENT_LS, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("name", list(CASES))
def test_a_bad_input_is_one_line_and_a_hint(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    places = {
        "missing": str(tmp_path / "nope"),
        "file": str(tmp_path / "file.txt"),
        "dir": str(tmp_path / "ws"),
    }
    (tmp_path / "file.txt").write_text("x\n")
    (tmp_path / "ws").mkdir()
    env = clean_env(AGENT_LS_CHECKPOINT_DIR=str(tmp_path / "stores"), **dict(case.env))
    done = run([arg.format(**places) for arg in case.args], env, tmp_path)
    assert done.stderr.splitlines() == [line.format(**places) for line in case.stderr]
    assert done.returncode == case.code
    assert done.stdout == ""


def test_a_busy_port_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run(["serve", "--tcp", "--port", str(port)], clean_env(), tmp_path)
    assert done.stderr.splitlines() == [
        f"agent-ls: cannot listen on 127.0.0.1:{port}: Address already in use"
    ]
    assert done.returncode == 1


@pytest.mark.parametrize("command", [*COMMANDS, None])
def test_help_still_prints_the_usage(command: str | None, tmp_path: Path) -> None:
    done = run([command, "--help"] if command else ["--help"], clean_env(), tmp_path)
    assert done.returncode == 0
    assert done.stdout.startswith(f"usage: agent-ls {command or ''}".rstrip())
    assert done.stderr == ""


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    """`agent-ls parse big-reply | head -1`: the pipe closes under the command; it stops with
    141 (as a shell reports SIGPIPE) and prints no BrokenPipeError traceback."""
    reply = tmp_path / "reply.txt"
    reply.write_text(
        'Some text.\n```json\n{"action": "text_response", "text_response": "x"}\n```\n' * 20000
    )
    process = subprocess.Popen(
        [AGENT_LS, "parse", str(reply)],
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    assert process.stdout.readline()  # the first block: the command is writing
    process.stdout.close()  # what `head -1` does next
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141, stderr
    assert stderr == ""
