"""One chat turn: the agent loop (SPEC §2.5).

stream a reply -> blocks -> text to the user; a tool call runs and its result goes back to
the model; plan documents apply one file each and the model is told what remains; invalid,
truncated or suspect documents get a precise error back (at most `max_retries` per turn).
The same code serves the LSP handler and the CLI; they differ in their sink and applier.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Protocol

import attrs

from actions.apply import ApplyRefused
from actions.checkpoints.types import CheckpointError
from actions.errors import ActionError
from actions.plans import PlanFiles, PlanRun
from actions.prompt import render_invalid_document, render_plan_progress
from actions.schema import (
    Action,
    ContinueMultiFile,
    FileOp,
    StartMultiFile,
    TextResponse,
    ToolCallAction,
    ToolCallSpec,
    validate_action,
)
from actions.tools import ToolRegistry
from actions.tools.adapters import ToolAdapter
from parsing import ActionBlock, Block, StreamParser, TextBlock, ToolCallBlock
from parsing.blocks import merge_text
from server.history import trim_history
from server.protocol import (
    BlockRecord,
    ChatContext,
    ChatResult,
    ErrorProgress,
    FileApplied,
    PlanProgress,
    PlanSummary,
    ProgressEvent,
    TextDelta,
    ToolCallResult,
    ToolCallStarted,
    block_record,
)
from server.providers.base import ChatMessage, NativeToolCall, Provider, StreamChunk
from server.providers.constraints import ConstrainedProvider
from server.session import ChatSession
from server.turn_state import turn_state

JSON_ADAPTER = ToolAdapter("json")


class ProgressSink(Protocol):
    """Where a turn's steps go as they happen (the LSP client, the terminal, a test)."""

    def emit(self, event: ProgressEvent) -> None: ...


class AgentError(Exception):
    """The turn cannot go on (too many invalid documents, turn limit, a refused edit)."""


@dataclass(frozen=True)
class Agent:
    """What a turn works with."""

    provider: Provider
    registry: ToolRegistry
    plans: PlanFiles | None
    workspace_name: str
    adapter: ToolAdapter = JSON_ADAPTER
    max_turns: int = 25
    max_retries: int = 3
    history_chars: int | None = None  # earlier turns are trimmed to this (None: kept whole)


@dataclass(frozen=True)
class TurnOutcome:
    text: str
    blocks: list[BlockRecord]
    plan: PlanSummary | None = None
    checkpoint_id: str | None = None

    def result(self, session_id: str) -> ChatResult:
        """The turn as `agent/chat` returns it."""
        return ChatResult(
            session_id=session_id,
            text=self.text,
            blocks=self.blocks,
            plan=self.plan,
            checkpoint_id=self.checkpoint_id,
        )


@dataclass
class Turn:
    """State of the turn in progress."""

    agent: Agent
    session_id: str
    sink: ProgressSink
    texts: list[str] = field(default_factory=list)
    blocks: list[BlockRecord] = field(default_factory=list)
    retries: int = 0
    replies: int = 0
    plan: PlanRun | None = None
    done: bool = False
    tools_called: list[str] = field(default_factory=list)

    def say(self, text: str) -> None:
        if text:
            self.texts.append(text)
            self.sink.emit(TextDelta(delta=text))


def user_message(message: str, context: ChatContext | None) -> str:
    """The user's message with the editor context the client sent, if any."""
    if context is None:
        return message
    where = context.uri
    if context.range is not None:
        where += f" (lines {context.range.start.line + 1}-{context.range.end.line + 1})"
    parts = [message, "", f"Context: {where}"]
    if context.selection_text:
        parts += ["Selected text:", "```", context.selection_text, "```"]
    return "\n".join(parts)


async def run_turn(
    agent: Agent,
    chat: ChatSession,
    message: str,
    context: ChatContext | None,
    sink: ProgressSink,
) -> TurnOutcome:
    """Run one turn; the session keeps the exchange only when the turn completes."""
    async with chat.lock:
        manifests = agent.registry.manifests()
        prompt = agent.adapter.system_prompt(manifests, workspace_name=agent.workspace_name)
        system = ChatMessage("system", prompt)
        past = chat.messages
        if agent.history_chars is not None:
            past = trim_history(past, agent.history_chars - len(prompt))
        convo = [*past, ChatMessage("user", user_message(message, context))]
        turn = Turn(agent, chat.id, sink)
        try:
            for _ in range(agent.max_turns):
                reply, blocks, calls = await stream_reply(agent, [system, *convo], turn)
                if calls:
                    convo.append(ChatMessage("assistant", reply, tool_calls=calls))
                    convo += await run_native_tools(turn, calls)
                    continue
                convo.append(ChatMessage("assistant", reply))
                feedback = await handle_reply(turn, blocks)
                if turn.done:
                    break
                convo.append(ChatMessage("user", feedback))
            else:
                raise AgentError(f"the turn limit was reached (maxTurns={agent.max_turns})")
            checkpoint_id = await finish_plan(turn)
        except BaseException as failure:
            await abandon_plan(turn, failure)
            raise
        chat.messages = convo
        plan = plan_summary(turn.plan) if turn.plan is not None else None
        if plan is not None and plan.skipped:
            sink.emit(PlanProgress(**attrs.asdict(plan)))  # ended early: what was skipped
        return TurnOutcome("".join(turn.texts), turn.blocks, plan, checkpoint_id)


async def stream_reply(
    agent: Agent, messages: list[ChatMessage], turn: Turn
) -> tuple[str, list[Block], tuple[NativeToolCall, ...]]:
    """Stream one reply; text outside documents reaches the user as it arrives."""
    parser = StreamParser()
    pieces: list[str] = []
    blocks: list[Block] = []
    calls: list[NativeToolCall] = []
    truncated = False
    async for chunk in await reply_stream(agent, messages, turn):
        calls.extend(chunk.tool_calls)
        if chunk.text:
            pieces.append(chunk.text)
            blocks += show_text(turn, parser.feed(chunk.text))
        truncated = truncated or chunk.finish_reason == "length"
    blocks = merge_text(blocks + show_text(turn, parser.close()))
    if truncated:
        mark_last_document_truncated(blocks)
    turn.blocks.extend(block_record(b, turn.replies) for b in blocks)
    turn.replies += 1
    return "".join(pieces), blocks, tuple(calls)


async def reply_stream(
    agent: Agent, messages: list[ChatMessage], turn: Turn
) -> AsyncIterator[StreamChunk]:
    """The provider's reply; a constrained provider (the embedded model) is told the turn's
    state, so it can only send a document the turn can use."""
    if isinstance(agent.provider, ConstrainedProvider):
        state = await turn_state(agent.registry, agent.plans, turn.plan, turn.tools_called)
        return agent.provider.stream_constrained(messages, state=state)
    tools = agent.adapter.native_tools(agent.registry.manifests())
    return agent.provider.stream_chat(messages, tools=tools)


def show_text(turn: Turn, blocks: list[Block]) -> list[Block]:
    """Text reaches the user as soon as the parser releases it."""
    for block in blocks:
        if isinstance(block, TextBlock):
            turn.say(block.text)
    return blocks


def mark_last_document_truncated(blocks: list[Block]) -> None:
    """The provider cut the reply (max tokens): its last document cannot be complete."""
    for index in range(len(blocks) - 1, -1, -1):
        block = blocks[index]
        if not isinstance(block, TextBlock):
            blocks[index] = replace(block, truncated=True)
            return


async def handle_reply(turn: Turn, blocks: list[Block]) -> str:
    """Act on the reply's documents; returns the next message for the model."""
    documents = [b for b in blocks if isinstance(b, ActionBlock | ToolCallBlock)]
    if not documents:
        turn.done = True  # no document: the reply is the final answer (SPEC §2.5)
        return ""
    feedback: list[str] = []
    for index, block in enumerate(documents):
        try:
            action = to_action(block)
        except ActionError as error:
            return retry(turn, render_invalid_document(error))
        if isinstance(action, TextResponse):
            turn.say(action.text_response)
            turn.done = True
            return ""
        if isinstance(action, ToolCallAction):
            result = await run_tool(turn, action.tool_call)
            ignored = len(documents) - index - 1
            if ignored:
                result += f"\n({ignored} later document(s) in that reply were not executed.)"
            return result
        feedback.append(await apply_plan_document(turn, action))
    return feedback[-1]


def to_action(block: ActionBlock | ToolCallBlock) -> Action:
    """The validated action of a document block (ActionError: why it cannot be used)."""
    if block.truncated:
        raise ActionError(
            "the document was cut off before its end, so nothing was applied; "
            "send it again complete (split a large file into smaller steps if needed)"
        )
    if block.suspect:
        raise ActionError(
            "the document is malformed JSON that could not be decoded without losing "
            "characters; send it again as valid JSON (escape quotes and newlines in strings)"
        )
    if isinstance(block, ToolCallBlock):
        return ToolCallAction(
            action="tool_call", tool_call=ToolCallSpec(function_name=block.name, args=block.args)
        )
    return validate_action(block.document)


def retry(turn: Turn, message: str) -> str:
    turn.retries += 1
    turn.sink.emit(ErrorProgress(message=message, retry=turn.retries))
    if turn.retries > turn.agent.max_retries:
        raise AgentError(
            f"the model sent {turn.retries} invalid documents in a row; last error: {message}"
        )
    return message


async def run_tool(turn: Turn, call: ToolCallSpec) -> str:
    turn.sink.emit(ToolCallStarted(name=call.function_name, args=call.args))
    turn.tools_called.append(call.function_name)
    result = await turn.agent.registry.call(call.function_name, call.args)
    turn.sink.emit(ToolCallResult(name=call.function_name, ok=result.ok, text=result.text[:4000]))
    return turn.agent.adapter.result_text(call, result)


async def run_native_tools(turn: Turn, calls: tuple[NativeToolCall, ...]) -> list[ChatMessage]:
    """Run the provider's structured tool calls; one `tool` message per result."""
    results = []
    for call in calls:
        text = await run_tool(turn, ToolCallSpec(function_name=call.name, args=call.arguments))
        results.append(ChatMessage("tool", text, tool_call_id=call.id))
    return results


async def apply_plan_document(turn: Turn, action: StartMultiFile | ContinueMultiFile) -> str:
    plans = turn.agent.plans
    if plans is None:
        return retry(turn, "no workspace folder is open, so files cannot be edited")
    op = await open_plan(turn, plans, action)
    if isinstance(op, str):
        return op
    if turn.plan is None:
        return retry(turn, "continue_multi_file without a plan: start with start_multi_file first")
    if not turn.plan.remaining and plans.already_applied(turn.plan, op):
        turn.done = True  # the plan is complete and the model repeats its last file: done
        return ""
    plan = turn.plan
    try:
        path = await plans.apply(plan, op)
    except ApplyRefused as error:
        raise AgentError(f"the plan was rolled back: {error}") from None
    except (ActionError, CheckpointError) as error:
        turn.sink.emit(ErrorProgress(message=str(error), path=op.path))
        progress = render_plan_progress(plan.applied, plan.remaining)
        return f"{op.action} {op.path} was refused, nothing was written: {error}\n{progress}"
    turn.sink.emit(
        FileApplied(path=path, action=op.action, message=action.message, planned=path in plan.files)
    )
    return render_plan_progress(plan.applied, plan.remaining)


async def abandon_plan(turn: Turn, failure: BaseException) -> None:
    """Roll back the plan in progress (if any) and tell the user."""
    plan = turn.plan
    if plan is None or turn.agent.plans is None or plan.recorder.closed:
        return
    await turn.agent.plans.rollback(plan)
    why = "cancelled" if isinstance(failure, asyncio.CancelledError) else "failed"
    turn.sink.emit(
        ErrorProgress(
            message=f"the turn {why}: the plan was rolled back "
            f"({len(plan.recorder.paths)} file(s) restored)",
            rolled_back=list(plan.recorder.paths),
        )
    )


async def open_plan(
    turn: Turn, plans: PlanFiles, action: StartMultiFile | ContinueMultiFile
) -> FileOp | str:
    """The document's file operation, starting its plan first if it opens one (a string: the
    refusal to send back to the model)."""
    if isinstance(action, ContinueMultiFile):
        return action.next_file
    if turn.plan is not None:
        await finish_plan(turn)
    try:
        turn.plan = await plans.start(
            action.plan.description, action.plan.files_to_modify, turn.session_id
        )
    except (ActionError, CheckpointError) as error:
        return retry(turn, f"The plan was refused, nothing was applied: {error}")
    turn.sink.emit(PlanProgress(description=turn.plan.description, files=list(turn.plan.files)))
    return action.first_file


async def finish_plan(turn: Turn) -> str | None:
    """Commit the plan in progress (if any); its checkpoint id."""
    if turn.plan is None or turn.agent.plans is None or turn.plan.recorder.closed:
        return None
    return await turn.agent.plans.commit(turn.plan)


def plan_summary(plan: PlanRun) -> PlanSummary:
    """The plan as the turn's result reports it."""
    return PlanSummary(
        description=plan.description,
        files=list(plan.files),
        applied=list(plan.applied),
        skipped=plan.remaining,
        unplanned=list(plan.unplanned),
    )
