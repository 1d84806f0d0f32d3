"""The ``run_command`` tool: a shell line run in a workspace folder, with the user's consent.

Arguments: ``{"command": str, "cwd"?: str, "timeout"?: number}``. ``cwd`` is a folder of the
workspace as the model names paths (default: the workspace root, the first folder of a
multi-root workspace); ``timeout`` can only lower the user's limit (``CommandPolicy.timeout``).

Consent (``CommandPolicy``): ``off`` refuses every call (the tool is not offered either);
``allow`` runs without asking; ``ask`` runs a line matching the allow list (globs over the
whole line, or a line the user allowed always in this session) and asks the front end's
``CommandGate`` for any other: Run, Always allow (that exact line, for the session), Deny.
The model hears what was decided; on Deny, not to retry the same line.

What a line changes on disk is recorded by the front end around the run (``CommandHooks``:
one undoable checkpoint), so the tool only runs it (``actions.shell.runner``).
"""

from __future__ import annotations

import enum
import fnmatch
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from actions.errors import InvalidToolCall, PathRefused
from actions.paths import PathResolver
from actions.shell.runner import CommandRun, run_shell
from actions.tools.base import Tool, ToolResult

NAME = "run_command"
DEFAULT_TIMEOUT = 120.0

CommandMode = Literal["ask", "allow", "off"]


def manifest(policy: CommandPolicy) -> Tool:
    """The manifest, its description saying the policy in force."""
    if policy.mode == "allow":
        consent = "Commands run without asking the user."
    else:
        consent = (
            "The user is asked before each command (except those on their allow list) and may "
            "deny it; a denied command must not be retried as it was."
        )
    return Tool(
        name=NAME,
        description=(
            "Run a shell command (/bin/sh -c) in a workspace folder, e.g. the project's tests, "
            "linter or build; returns its exit code, duration and output (stdout and stderr "
            f"interleaved; long output keeps its first 4 KB and last 12 KB). {consent} Time "
            f"limit {policy.timeout:g} s; stdin is closed; whatever the command leaves running "
            "is stopped when it ends. Files it changes can be undone by the user."
        ),
        parameters={
            "type": "object",
            "properties": {
                "command": {"type": "string", "minLength": 1, "description": "The shell line"},
                "cwd": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Folder to run in (default: the workspace root)",
                },
                "timeout": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "description": f"Seconds; at most {policy.timeout:g}",
                },
            },
            "required": ["command"],
            "additionalProperties": False,
        },
    )


@dataclass
class CommandPolicy:
    """The user's rules for commands: a mode, globs that run without asking, a time limit;
    ``session_allowed``: exact lines the user allowed always (shared by a session's turns)."""

    mode: CommandMode = "ask"
    allow_list: tuple[str, ...] = ()
    timeout: float = DEFAULT_TIMEOUT
    session_allowed: set[str] = field(default_factory=set)

    def runs_without_asking(self, line: str) -> bool:
        if self.mode == "allow" or line in self.session_allowed:
            return True
        return any(fnmatch.fnmatchcase(line, glob) for glob in self.allow_list)


class Consent(enum.Enum):
    RUN = "run"
    ALWAYS = "always"
    DENY = "deny"


@dataclass(frozen=True)
class CommandRequest:
    """A line about to run: what the consent prompt shows."""

    command: str
    cwd: Path
    shown_cwd: str  # the folder as the model and the user name it
    timeout: float


class CommandGate(Protocol):
    """The front end's consent prompt. No answer, or a dismissed prompt, is ``DENY``."""

    async def ask(self, request: CommandRequest) -> Consent: ...


Runner = Callable[[CommandRequest, Mapping[str, str], Callable[[str], None]], Awaitable[CommandRun]]


@dataclass
class CommandHooks:
    """What the front end adds around a run: the output as it comes (``on_output``), and the
    run itself wrapped (``around``: e.g. the files it changes recorded as one checkpoint,
    the note returned added to the model's result)."""

    on_output: Callable[[CommandRequest, str], None] | None = None
    run: Runner | None = None  # how the line runs (None: here, `run_shell`; ACP: a terminal)
    around: (
        Callable[
            [CommandRequest, Callable[[], Awaitable[CommandRun]]], Awaitable[tuple[CommandRun, str]]
        ]
        | None
    ) = None


class RunCommand:
    """The behaviour behind the manifest."""

    name = NAME

    def __init__(
        self,
        resolver: PathResolver,
        default_cwd: str,
        policy: CommandPolicy,
        gate: CommandGate,
        env: Mapping[str, str],
        hooks: CommandHooks | None = None,
    ) -> None:
        self._resolver = resolver
        self._default_cwd = default_cwd
        self._policy = policy
        self._gate = gate
        self._env = dict(env)
        self._hooks = hooks or CommandHooks()

    async def execute(self, args: Mapping[str, Any]) -> ToolResult:
        request = self._request(args)
        if self._policy.mode == "off":
            return _refused(request, "commands are turned off (setting `commands`: off)")
        if not self._policy.runs_without_asking(request.command):
            consent = await self._gate.ask(request)
            if consent is Consent.DENY:
                return _refused(request, "the user denied it; do not run the same command again")
            if consent is Consent.ALWAYS:
                self._policy.session_allowed.add(request.command)
        run, note = await self._run(request)
        return _result(run, request, note)

    def _request(self, args: Mapping[str, Any]) -> CommandRequest:
        command = str(args["command"])
        if "\0" in command:
            raise InvalidToolCall(NAME, "command", "contains a NUL character")
        raw_cwd = str(args.get("cwd") or self._default_cwd)
        resolved = self._resolver.resolve(raw_cwd, for_write=False)
        if not resolved.absolute.is_dir():
            raise PathRefused(raw_cwd, "is not a folder of the workspace")
        limit = self._policy.timeout
        asked = args.get("timeout")
        timeout = min(float(asked), limit) if asked is not None else limit
        return CommandRequest(command, resolved.absolute, resolved.model_path, timeout)

    async def _run(self, request: CommandRequest) -> tuple[CommandRun, str]:
        on_output = self._hooks.on_output

        def forward(text: str) -> None:
            if on_output is not None:
                on_output(request, text)

        async def run() -> CommandRun:
            if self._hooks.run is not None:
                return await self._hooks.run(request, self._env, forward)
            return await run_shell(
                request.command, request.cwd, self._env, request.timeout, forward
            )

        if self._hooks.around is None:
            return await run(), ""
        return await self._hooks.around(request, run)


def _refused(request: CommandRequest, why: str) -> ToolResult:
    return ToolResult(
        ok=False,
        text=f"$ {request.command}\nnot run: {why}",
        data={"command": request.command, "cwd": request.shown_cwd, "ran": False},
        error_kind="command_refused",
    )


def _result(run: CommandRun, request: CommandRequest, note: str) -> ToolResult:
    if run.timed_out:
        status = f"timed out after {request.timeout:g} s (stopped); output so far:"
    else:
        status = f"exit code {run.exit_code}, {run.seconds:.1f} s"
    lines = [f"$ {run.command}  (in {request.shown_cwd})", status, run.output.rstrip("\n")]
    if note:
        lines.append(note)
    data = {
        "command": run.command,
        "cwd": request.shown_cwd,
        "ran": True,
        "exitCode": run.exit_code,
        "seconds": round(run.seconds, 3),
        "timedOut": run.timed_out,
        "outputBytes": run.output_bytes,
    }
    return ToolResult(ok=not run.timed_out and run.exit_code == 0, text="\n".join(lines), data=data)
