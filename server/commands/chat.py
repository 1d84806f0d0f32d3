"""`agent-ls chat --workspace DIR "message"`: one turn in the terminal, same code as the LSP."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from actions.apply import DiskApplier
from server.commands.command_consent import TerminalGate
from server.commands.errors import (
    INTERRUPTED,
    USAGE,
    check_workspace,
    complain,
    failure,
    usage_error,
)
from server.commands.progress import Progress
from server.config import Config, ConfigProblem, blocking_problem, from_environment, merge
from server.mcp_config import load_file, parse_servers
from server.protocol import (
    CommandOutput,
    ErrorProgress,
    FileApplied,
    FileStaged,
    PlanProgress,
    ProgressEvent,
    ReviewPlan,
    ReviewProgress,
    TextDelta,
    ToolCallResult,
    ToolCallStarted,
    to_wire,
)
from server.providers import PROVIDERS, ProviderError
from server.state import ServerState
from server.turn_assembly import FrontEnd, run_front_end_turn
from server.turns.turn import AgentError, ChatSession, TurnOutcome
from server.wording import empty_message_problem, setting_message


class StdoutSink:
    """Prints text deltas as they arrive (unless --json); other steps, one line each, on stderr."""

    def __init__(self, stream_text: bool) -> None:
        self.stream_text = stream_text
        self.progress: Progress | None = None

    def emit(self, event: ProgressEvent) -> None:
        if self.progress is not None:
            self.progress.clear()
        if isinstance(event, TextDelta):
            if event.delta and self.stream_text:
                sys.stdout.write(event.delta)
                sys.stdout.flush()
            return
        if isinstance(event, CommandOutput):  # the command's own output, as it comes
            sys.stderr.write(event.text)
            sys.stderr.flush()
            return
        print(f"agent-ls: {step_line(event)}", file=sys.stderr, flush=True)


def step_line(event: ProgressEvent) -> str:
    """One line for the terminal describing an agent step."""
    match event:
        case ToolCallStarted(name=name, args=args):
            return f"tool {name} {json.dumps(args, ensure_ascii=False)}"
        case ToolCallResult(name=name, ok=ok):
            return f"tool {name} {'ok' if ok else 'failed'}"
        case PlanProgress(description=description, files=files):
            return f"plan: {description} ({', '.join(files)})"
        case FileApplied(action=action, path=path):
            return f"{action} {path}"
        case FileStaged(action=action, path=path):
            return f"staged for review: {action} {path}"
        case ErrorProgress(message=message):
            return f"error: {message}"
        case ReviewProgress(state=state, files=files):
            return f"review: {state} ({', '.join(f.path for f in files)})"
        case CommandOutput(text=text):
            return text
        case TextDelta(delta=delta):
            return delta


def register(sub: Any) -> None:
    parser = sub.add_parser("chat", help="ask once in the terminal and stream the answer")
    parser.add_argument("message", help="what to ask")
    parser.add_argument("--workspace", default=".", help="workspace folder (default: .)")
    parser.add_argument("--provider", choices=PROVIDERS, help=f"provider ({', '.join(PROVIDERS)})")
    parser.add_argument("--base-url", dest="baseUrl", help="provider base URL, e.g. …/v1")
    parser.add_argument("--model", help="model name")
    parser.add_argument("--json", action="store_true", help="print the final result as JSON")
    parser.add_argument(
        "--allow-commands",
        action="store_true",
        help="run the model's shell commands without asking (setting commands: allow)",
    )
    add_mcp_config(parser)
    parser.set_defaults(func=run)


def add_mcp_config(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mcp-config",
        metavar="FILE",
        help='MCP servers: a JSON file {"mcpServers": {...}} (default: $AGENT_LS_MCP_CONFIG)',
    )


def cli_config(args: argparse.Namespace) -> tuple[Config, set[str], list[ConfigProblem]]:
    """Environment overlaid with the flags; the keys the flags set explicitly."""
    config, problems = from_environment()
    flags = {k: getattr(args, k) for k in ("provider", "baseUrl", "model") if getattr(args, k)}
    if getattr(args, "allow_commands", False):
        flags["commands"] = "allow"
    config, more = merge(config, flags, "command line")
    mcp_file = getattr(args, "mcp_config", None)
    if mcp_file:
        try:
            config = replace(config, mcpServers=parse_servers(load_file(mcp_file)))
        except ValueError as error:
            more.append(ConfigProblem("mcpServers", str(error), mcp_file, "--mcp-config"))
    return config, set(flags), problems + more


async def chat_once(
    config: Config, explicit: set[str], root: Path, message: str, sink: StdoutSink
) -> tuple[ChatSession, TurnOutcome]:
    """One turn (server.turn_assembly): plan files written to disk, progress on the
    terminal, no review (a plan is applied at once)."""
    progress = Progress()
    sink.progress = progress
    progress.start()
    # The flags are settings the user set (explicit), as initializationOptions are for the
    # server: the state resolves the provider from them as the server does.
    state = ServerState(config, init_options={key: getattr(config, key) for key in explicit})
    try:
        provider = await state.resolved_provider(root)  # the one the turn gets (kept)
        if provider.name == "local":
            progress.clear()
            print(EMBEDDED_NOTE, file=sys.stderr, flush=True)
            progress.detail = generated_tokens
        folder = await state.folders.get(root, config.allowSecretFiles)
        session = ChatSession("cli")
        gate = TerminalGate(progress)
        # The current directory is where the user is: its folders' AGENTS.md count.
        front = FrontEnd(
            root,
            [folder],
            DiskApplier(root),
            sink,
            commands=gate,
            tools=gate,
            trust=gate,
            context_path=current_dir(),
        )
        turn = await run_front_end_turn(state, front, session, message)
        return session, turn.outcome
    finally:
        await progress.stop()
        await state.close_mcp()  # the MCP servers end with the command


def current_dir() -> Path | None:
    """The current directory (None when it was deleted under us)."""
    try:
        return Path.cwd()
    except OSError:
        return None


EMBEDDED_NOTE = (
    "agent-ls: answering with the embedded model (in process, on the CPU): loading it and "
    "writing each document take a while"
)


def generated_tokens() -> str:
    from server.providers.local import tokens_generated

    return f"{tokens_generated()} tokens generated"


def no_answer(outcome: TurnOutcome) -> str | None:
    """What to print when the turn ended without answer text (None: nothing was done)."""
    plan = outcome.plan
    if plan is None or isinstance(plan, ReviewPlan) or not plan.applied:
        return None
    undo = " (agent-ls undo reverts it)" if outcome.checkpoint_id else ""
    return f"Applied the plan '{plan.description}': {', '.join(plan.applied)}{undo}"


def cli_setup(args: argparse.Namespace) -> tuple[Path, Config, set[str]] | None:
    """The resolved --workspace and the configuration (problems printed); None: no folder,
    or a malformed agentLs.baseUrl (its problem is the one line printed)."""
    workspace = Path(args.workspace)
    if not check_workspace(workspace):
        return None
    config, explicit, problems = cli_config(args)
    blocking = blocking_problem(problems, frozenset({"baseUrl"}))
    for problem in [blocking] if blocking is not None else problems:
        complain(setting_message(problem))
    if blocking is not None:
        return None
    return workspace.resolve(), config, explicit


def run(args: argparse.Namespace) -> int:
    problem = empty_message_problem(args.message)
    if problem is not None:
        return usage_error(problem)
    setup = cli_setup(args)
    if setup is None:
        return USAGE
    root, config, explicit = setup
    sink = StdoutSink(stream_text=not args.json)
    try:
        session, outcome = asyncio.run(chat_once(config, explicit, root, args.message, sink))
    except (ProviderError, AgentError) as exc:
        if not args.json:
            sys.stdout.write("\n")
        return failure(str(exc))
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        complain("cancelled")
        return INTERRUPTED
    if args.json:
        print(json.dumps(to_wire(outcome.result(session.id)), ensure_ascii=False))
        return 0
    if not outcome.text.strip():
        summary = no_answer(outcome)
        if summary is None:
            return failure("the model ended the turn without an answer")
        print(summary)
    elif not outcome.text.endswith("\n"):
        sys.stdout.write("\n")
    return 0
