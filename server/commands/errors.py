"""How every `agent-ls` command reports a bad input or a failure: one form, one wording.

On stderr, one line `agent-ls: <what was wrong>`, then at most one hint line saying what to do
(none when the first line already says it), never a usage block (`--help` prints that) and
never a traceback.

Exit codes, the same for every command:
  0    done
  1    the command ran and failed or refused (the provider failed, nothing to undo, a
       conflict, an unknown session id, a log that does not parse)
  2    a usage error: the command line, a file or folder it names, or a setting is unusable
       (or the index store cannot be opened); nothing was done
  130  interrupted (Ctrl-C)
  141  the reader of its output went away (`agent-ls doctor | head`), as a shell reports a
       program SIGPIPE ended; nothing is printed
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import NoReturn

from server.wording import workspace_problem

FAILED = 1
USAGE = 2
INTERRUPTED = 130
PIPE_CLOSED = 141

WORKSPACE_HINT = "give an existing folder with --workspace DIR (default: the current folder)"
INPUT_HINT = "give a readable file, or - for standard input"


def complain(what: str, hint: str | None = None) -> None:
    """Print the one `agent-ls:` line (and the hint line) on stderr."""
    lines = [f"agent-ls: {what}"] + ([hint] if hint else [])
    print("\n".join(lines), file=sys.stderr, flush=True)


def usage_error(what: str, hint: str | None = None) -> int:
    """Report a usage error; returns its exit code (2)."""
    complain(what, hint)
    return USAGE


def failure(what: str, hint: str | None = None) -> int:
    """Report a runtime failure; returns its exit code (1)."""
    complain(what, hint)
    return FAILED


def check_workspace(path: Path) -> bool:
    """True when `path` can be a workspace; otherwise its problem is reported (exit 2)."""
    problem = workspace_problem(path)
    if problem is not None:
        complain(problem, WORKSPACE_HINT)
    return problem is None


def unreadable(name: str, error: OSError) -> int:
    """An input file that cannot be read (exit 2)."""
    return usage_error(f"cannot read {name}: {error.strerror or error}", INPUT_HINT)


class CliParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors take the one form: `agent-ls: <what>` and a hint to
    the command's `--help`, exit 2. `add_subparsers` makes every sub-command one too."""

    commands: Mapping[str, argparse.ArgumentParser]

    def error(self, message: str) -> NoReturn:
        topic = "options" if " " in self.prog else "commands and options"
        complain(message, f"run '{self.prog} --help' for the {topic}")
        self.exit(USAGE)

    def parse_args(  # type: ignore[override]
        self, args: list[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """As argparse's, but an unknown argument after a sub-command is that command's
        error (its hint names its own `--help`)."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            commands = getattr(self, "commands", {})
            owner = commands.get(getattr(parsed, "command", None) or "", self)
            owner.error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed
