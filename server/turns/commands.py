"""`run_command` for one turn: the user's policy, the front end's consent prompt, the
environment a command gets, its output streamed to the user, and what it changes on disk
recorded as one undoable checkpoint.

The environment is the user's, less the credentials agent-ls itself holds: the provider key
variables it reads (AGENT_LS_API_KEY, the `apiKeyEnv` variable, ANTHROPIC_API_KEY when the
anthropic provider reads it) and any variable holding a secret agent-ls registered (the key a
provider read, the password of a `baseUrl` / `indexUrl`).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping

from actions.checkpoints import CheckpointStore
from actions.external_edits import run_capturing
from actions.paths import PathResolver, Workspace
from actions.shell.runner import CommandRun
from actions.tools.base import Tool
from actions.tools.run_command import (
    CommandGate,
    CommandHooks,
    CommandPolicy,
    CommandRequest,
    Consent,
    RunCommand,
    Runner,
    manifest,
)
from server.config import API_KEY_ENV, Config
from server.protocol import CommandOutput, CommandsReport, ErrorProgress
from server.providers.anthropic import ANTHROPIC_KEY_ENV
from server.redact import holds_remembered
from server.turns.turn import ProgressSink


class DenyAll:
    """The gate of a front end that cannot ask: every line not allowed by policy is denied."""

    async def ask(self, request: CommandRequest) -> Consent:
        return Consent.DENY


def command_environment(
    config: Config, provider_name: str, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment a command runs with (see the module)."""
    env = os.environ if environ is None else environ
    dropped = {API_KEY_ENV, config.apiKeyEnv}
    if provider_name == "anthropic":
        dropped.add(ANTHROPIC_KEY_ENV)
    return {
        name: value
        for name, value in env.items()
        if name not in dropped and not holds_remembered(value)
    }


def commands_report(config: Config, provider_name: str | None) -> CommandsReport:
    """The policy as `agent/status` and `agent-ls doctor` show it."""
    return CommandsReport(
        mode=config.commands,
        allow_list=list(config.commandAllowList),
        timeout=config.commandTimeout,
        offered=config.commands != "off" and provider_name not in (None, "local"),
    )


def render_commands(report: CommandsReport) -> str:
    """The policy for a terminal (`agent-ls doctor`)."""
    if not report.offered:
        why = "off" if report.mode == "off" else "not offered to this provider"
        return f"commands:  {why}"
    modes = {"ask": "asks before each line", "allow": "run without asking (trusted)"}
    allowed = (
        f"; allowed without asking: {', '.join(report.allow_list)}" if report.allow_list else ""
    )
    return f"commands:  {modes[report.mode]}{allowed}; time limit {report.timeout:g} s"


def policy_of(config: Config, allowed: set[str]) -> CommandPolicy:
    """The policy in force; `allowed`: the session's lines allowed always (kept there)."""
    return CommandPolicy(
        mode=config.commands,  # type: ignore[arg-type]  # checked by the settings
        allow_list=config.commandAllowList,
        timeout=config.commandTimeout,
        session_allowed=allowed,
    )


Run = Callable[[], Awaitable[CommandRun]]
Record = Callable[[CommandRequest, Run], Awaitable[tuple[CommandRun, str]]]
Locate = Callable[[CommandRequest], tuple[Workspace, CheckpointStore] | None]


def command_tool(
    config: Config,
    provider_name: str,
    resolver: PathResolver,
    default_cwd: str,
    gate: CommandGate,
    allowed: set[str],
    sink: ProgressSink,
    record: Record | None,
    runner: Runner | None = None,
) -> tuple[Tool, RunCommand] | None:
    """The tool for this turn, or None when commands are off (not offered)."""
    if config.commands == "off":
        return None
    policy = policy_of(config, allowed)

    def on_output(request: CommandRequest, text: str) -> None:
        sink.emit(CommandOutput(command=request.command, text=text))

    hooks = CommandHooks(on_output=on_output, run=runner, around=record)
    tool = RunCommand(
        resolver,
        default_cwd,
        policy,
        gate,
        command_environment(config, provider_name),
        hooks,
    )
    return manifest(policy), tool


def recorder_for(
    stores: Locate,
    session_id: str,
    sink: ProgressSink,
) -> Record:
    """Records what a run changes in its folder as one checkpoint (`agent.undo` takes it back);
    the note tells the model (and the user) what was recorded."""

    async def record(request: CommandRequest, run: Run) -> tuple[CommandRun, str]:
        found = stores(request)
        if found is None:
            return await run(), ""
        workspace, store = found
        title = request.command.strip().splitlines()[0][:60]
        result, info, unrecorded = await run_capturing(
            workspace, store, session_id, f"command: {title}", run
        )
        notes = []
        if info is not None:
            notes.append(f"files changed (one undo step): {', '.join(info.files)}")
        if unrecorded:
            message = f"changed but not undoable: {', '.join(unrecorded)}"
            sink.emit(ErrorProgress(message=message))
            notes.append(message)
        return result, "\n".join(notes)

    return record
