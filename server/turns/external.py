"""A chat turn whose provider is an external coding agent (`cli`): the files it writes
itself are recorded as one checkpoint (actions/external_edits.py), so `agent.undo` and
`agent-ls undo` revert them like any plan."""

from __future__ import annotations

from dataclasses import replace

from actions.external_edits import run_capturing
from server.protocol import ChatContext, ErrorProgress
from server.turns.loop import run_turn
from server.turns.turn import Agent, ChatSession, ProgressSink, TurnOutcome


async def run_turn_recorded(
    agent: Agent,
    session: ChatSession,
    message: str,
    context: ChatContext | None,
    sink: ProgressSink,
) -> TurnOutcome:
    """`run_turn`; with the cli provider, what the agent changed on disk becomes undoable."""
    plans = agent.plans
    if agent.provider.name != "cli" or plans is None:
        return await run_turn(agent, session, message, context, sink)
    title = message.strip().splitlines()[0][:60] if message.strip() else "(no message)"
    outcome, info, unrecorded = await run_capturing(
        plans.workspace,
        plans.store,
        session.id,
        f"cli agent: {title}",
        lambda: run_turn(agent, session, message, context, sink),
    )
    if unrecorded:
        sink.emit(ErrorProgress(message=f"changed but not undoable: {', '.join(unrecorded)}"))
    return replace(outcome, checkpoint_id=info.id) if info is not None else outcome
