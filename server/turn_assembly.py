"""One turn, assembled the same way for every front end (LSP, ACP, the `chat` command).

A front end brings what is its own: the folders it opened, how edits reach the files (its
applier), how progress reaches the user (its sink), whether it can show a staged plan, and
the editor's live index when it has one. Everything else is here: the configuration and the
provider (resolved by the server state, forgotten when it fails), review staging, the review
notes the model hears first, the project's rules files (read again every turn: `server/rules.py`;
nearest the editor context, else the front end's `context_path`), the tools and plans
(`build_agent`), the `cli` provider's
recording of its own edits, the loop. Cancelling the task that awaits the turn cancels it
(the plan in progress is rolled back before the cancellation propagates).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from actions.apply import Applier
from actions.buffers import BufferSource
from actions.checkpoints import CheckpointStore
from actions.paths import Workspace
from actions.review import StagedPlan, StagingApplier, new_plan
from actions.tools.consent import ToolGate
from actions.tools.run_command import CommandGate, CommandRequest, Runner
from actions.tools.search_docs import IndexSource
from server.config import Config
from server.conversation import Recorder
from server.mcp.manager import McpManager
from server.mcp.project import TrustGate
from server.mcp.turn import with_mcp_tools
from server.protocol import ChatContext, FileApplied, FileStaged, PlanProgress, ProgressEvent
from server.providers import ProviderError
from server.rules import context_path, read_rules
from server.state import ServerState
from server.turns.commands import DenyAll, command_tool, recorder_for
from server.turns.external import run_turn_recorded
from server.turns.turn import Agent, ChatSession, ProgressSink, TurnOutcome
from server.workspace import FolderContext, build_agent, roots_of


@dataclass(frozen=True)
class FrontEnd:
    """What a front end brings to a turn."""

    root: Path | None  # the workspace: its review board, where the provider runs (None: none)
    folders: Sequence[FolderContext]  # opened, the primary first (empty: the model only talks)
    applier: Applier | None  # how plan files reach the files (None: no folder)
    sink: ProgressSink  # how progress reaches the user
    reviews: bool = False  # it shows staged plans: with `review: on` plans are staged
    review: bool | None = None  # its own review switch (an ACP session's); None: the setting
    index_source: IndexSource | None = None  # the editor's live index (single folder)
    index_sources: Mapping[str, IndexSource] | None = None  # each folder's, by folder name
    buffers: BufferSource | None = None  # the editor's text of files (None: the disk)
    commands: CommandGate | None = None  # its consent prompt for run_command (None: denied)
    command_runner: Runner | None = None  # where a command runs (None: here; ACP: a terminal)
    # records what the user sees, around `sink` (None: the message as typed, around `sink`)
    recorder: Recorder | None = None
    # Where the user is when the chat has no editor context (ACP: the first file the prompt
    # attached; CLI: the current directory): the rules files of the folders down to it count.
    context_path: Path | None = None
    tools: ToolGate | None = None  # its consent prompt for MCP tool calls (None: denied)
    mcp: McpManager | None = None  # its own MCP servers (an ACP session's), besides the settings'
    trust: TrustGate | None = None  # its prompt to trust a project's .mcp.json (None: not used)


@dataclass(frozen=True)
class FrontEndTurn:
    """The turn's outcome; `staged`: the plan waiting for review (already on the board),
    which the front end presents its own way."""

    outcome: TurnOutcome
    staged: StagedPlan | None = None


class StagingSink:
    """A front end's sink while the plan is staged: a file the plan "applied" was only staged
    (`file_staged`), and the plan's end-of-turn progress names nothing as applied; the user
    sees a proposal, never a file written before it was accepted."""

    def __init__(self, inner: ProgressSink) -> None:
        self.inner = inner

    def emit(self, event: ProgressEvent) -> None:
        if isinstance(event, FileApplied):
            event = FileStaged(
                path=event.path, action=event.action, message=event.message, planned=event.planned
            )
        elif isinstance(event, PlanProgress) and event.applied is not None:
            event = PlanProgress(
                description=event.description, files=event.files, skipped=event.skipped
            )
        self.inner.emit(event)


async def run_front_end_turn(
    state: ServerState,
    front: FrontEnd,
    session: ChatSession,
    message: str,
    context: ChatContext | None = None,
) -> FrontEndTurn:
    """Run one turn of `session` for `front`. A ProviderError makes the next turn resolve the
    provider again; it and AgentError propagate for the front end to report."""
    config, _ = state.config()
    recorder = front.recorder if front.recorder is not None else Recorder(message, front.sink)
    applier = front.applier
    staged = None
    sink: ProgressSink = recorder  # what the user is shown is kept (server.conversation)
    review = front.review if front.review is not None else config.review == "on"
    if applier is not None and front.reviews and review:
        staged = new_plan(session.id)
        applier = StagingApplier(applier, staged)
        sink = StagingSink(sink)
    board = state.board(front.root)
    notes = board.take_feedback(session.id)
    if notes:  # review decisions since the last turn: the model learns them first
        message = "\n".join(notes) + "\n\n" + message
    try:
        provider = await state.resolved_provider(front.root)
        agent = build_agent(
            config,
            provider,
            front.folders[0] if front.folders else None,
            applier,
            index_source=front.index_source,
            folders=front.folders,
            index_sources=front.index_sources,
            buffers=front.buffers,
        )
        where = context_path(context) or front.context_path
        roots = roots_of(front.folders).roots if front.folders else ()
        rules = await read_rules([root.workspace for root in roots], where, provider.name)
        agent = replace(agent, rules=rules.prompt_section())
        agent = with_commands(agent, config, front, session)
        managers = await mcp_servers(state, config, front, where)
        agent = await with_mcp_tools(agent, config, managers, front.tools, session.allowed_tools)
        if staged is not None:
            agent = replace(agent, staging=True)
        with state.foreground.turn():  # the index build yields meanwhile
            outcome = await run_turn_recorded(agent, session, message, context, sink)
    except ProviderError:
        state.forget_resolution()  # a local server may be gone: resolve again next turn
        raise
    recorder.commit(session.shown)  # kept with the session's messages (server.conversation)
    if staged is None or not staged.files:
        return FrontEndTurn(outcome)
    staged.description = outcome.plan.description if outcome.plan is not None else ""
    board.add(staged)
    return FrontEndTurn(outcome, staged)


async def mcp_servers(
    state: ServerState, config: Config, front: FrontEnd, where: Path | None
) -> list[McpManager]:
    """The MCP servers a turn offers, in the order a server's name wins: the front end's own
    (an ACP session's), the turn's folder's settings, its `.mcp.json` (asked to trust it
    first), the user's settings. Another folder's are not offered."""
    state.mcp.sync(config.mcpServers)
    own = [front.mcp] if front.mcp is not None else []
    folder = turn_folder(front.folders, where)
    if folder is None:
        return [*own, state.mcp]
    servers = state.folder(folder).mcp
    servers.project.sync(await state.project_trust.trusted_specs(folder, front.trust))
    return [*own, servers.settings, servers.project, state.mcp]


def turn_folder(folders: Sequence[FolderContext], where: Path | None) -> Path | None:
    """The folder a turn is in: the innermost holding `where` (the file the chat is about,
    or where the user is), else the first folder (None: no folder)."""
    roots = [folder.root for folder in folders]
    if where is not None:
        resolved = where.resolve()
        inside = [root for root in roots if resolved.is_relative_to(root.resolve())]
        if inside:
            return max(inside, key=lambda root: len(root.resolve().parts))
    return roots[0] if roots else None


def with_commands(agent: Agent, config: Config, front: FrontEnd, session: ChatSession) -> Agent:
    """The agent with `run_command` offered (not with `commands: off`, without a folder, or to
    the embedded model, too small to be trusted with a shell)."""
    plans = agent.plans
    if plans is None or agent.provider.name == "local":
        return agent
    folders = list(front.folders)
    default_cwd = "/" if plans.roots is None else f"/{plans.roots.names[0]}"

    def locate(request: CommandRequest) -> tuple[Workspace, CheckpointStore] | None:
        for folder in folders:  # the folder that holds the command's directory
            if request.cwd == folder.workspace.root or folder.workspace.root in request.cwd.parents:
                return folder.workspace, folder.store
        return None

    built = command_tool(
        config,
        agent.provider.name,
        plans.resolver,
        default_cwd,
        front.commands or DenyAll(),
        session.allowed_commands,
        front.sink,
        recorder_for(locate, session.id, front.sink),
        front.command_runner,
    )
    if built is None:
        return agent
    return replace(agent, registry=agent.registry.extended(*built))
