"""One chat turn: the agent loop (SPEC §2.5).

stream a reply -> blocks -> text to the user; a tool call runs and its result goes back to
the model; plan documents apply one file each and the model is told what remains; invalid,
truncated or suspect documents get a precise error back (at most `max_retries` per turn).
The same code serves the LSP handler and the CLI; they differ in their sink and applier.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

import attrs

from actions.apply import ApplyRefused
from actions.checkpoints.types import CheckpointError
from actions.documents import DocumentFences, mark_last_document_truncated, to_action
from actions.errors import ActionError
from actions.feedback import (
    describe_document,
    join_results,
    render_cut_document,
    render_cut_text,
    render_malformed,
)
from actions.fence_refs import TruncatedBody
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
)
from actions.tools import Tool, ToolRegistry
from actions.tools.adapters import ToolAdapter
from parsing import ActionBlock, Block, StreamParser, TextBlock, ToolCallBlock
from parsing.blocks import merge_text
from parsing.malformed import malformed_documents
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
    ReviewPlan,
    TextDelta,
    TextRecord,
    ToolCallResult,
    ToolCallStarted,
    block_record,
)
from server.providers.base import ChatMessage, NativeToolCall, Provider, StreamChunk
from server.providers.constraints import ConstrainedProvider
from server.turn_state import turn_state

JSON_ADAPTER = ToolAdapter("json")


class ProgressSink(Protocol):
    """Where a turn's steps go as they happen (the LSP client, the terminal, a test)."""

    def emit(self, event: ProgressEvent) -> None: ...


@dataclass
class ChatSession:
    """One conversation; turns of the same session run one at a time."""

    id: str
    messages: list[ChatMessage] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


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
    folders: tuple[str, ...] = ()  # the folder names of a multi-root workspace


@dataclass(frozen=True)
class TurnOutcome:
    text: str
    blocks: list[BlockRecord]
    plan: PlanSummary | ReviewPlan | None = None
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
        prompt = system_prompt(agent.adapter, tuple(manifests), agent.workspace_name, agent.folders)
        system = ChatMessage("system", prompt)
        past = chat.messages
        if agent.history_chars is not None:
            past = trim_history(past, agent.history_chars - len(prompt))
        convo = [*past, ChatMessage("user", user_message(message, context))]
        turn = Turn(agent, chat.id, sink)
        try:
            for _ in range(agent.max_turns):
                reply = await stream_reply(agent, [system, *convo], turn)
                if reply.calls:
                    convo.append(ChatMessage("assistant", reply.text, tool_calls=reply.calls))
                    convo += await run_native_tools(turn, reply.calls)
                    continue
                convo.append(ChatMessage("assistant", reply.text))
                feedback = await handle_reply(turn, reply)
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


@functools.lru_cache(maxsize=32)
def system_prompt(
    adapter: ToolAdapter,
    manifests: tuple[Tool, ...],
    workspace_name: str,
    folders: tuple[str, ...] = (),
) -> str:
    """The system prompt, rendered once per set of tools, workspace and folders (manifests
    and the adapter are immutable; every turn of a session sends the same prompt)."""
    return adapter.system_prompt(manifests, workspace_name=workspace_name, folders=folders)


@dataclass(frozen=True)
class Reply:
    """One streamed reply: its text, blocks, native tool calls, and whether the provider
    stopped it at the output token limit."""

    text: str
    blocks: list[Block]
    calls: tuple[NativeToolCall, ...] = ()
    cut: bool = False


async def stream_reply(agent: Agent, messages: list[ChatMessage], turn: Turn) -> Reply:
    """Stream one reply; text outside documents reaches the user as it arrives."""
    parser = StreamParser()
    pieces: list[str] = []
    blocks: list[Block] = []
    calls: list[NativeToolCall] = []
    cut = False
    async for chunk in await reply_stream(agent, messages, turn):
        calls.extend(chunk.tool_calls)
        if chunk.text:
            pieces.append(chunk.text)
            blocks += show_text(turn, parser.feed(chunk.text))
        cut = cut or chunk.finish_reason == "length"
    blocks = merge_text(blocks + show_text(turn, parser.close()))
    if cut:
        mark_last_document_truncated(blocks)
    records = [block_record(b, turn.replies) for b in blocks]
    if cut and records and isinstance(records[-1], TextRecord):
        # a text cut at the token limit is not a complete answer
        records[-1] = attrs.evolve(records[-1], truncated=True)
    turn.blocks.extend(records)
    turn.replies += 1
    return Reply("".join(pieces), blocks, tuple(calls), cut)


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


async def handle_reply(turn: Turn, reply: Reply) -> str:
    """Run every document of the reply in order; returns the next message for the model."""
    documents = [b for b in reply.blocks if isinstance(b, ActionBlock | ToolCallBlock)]
    malformed = malformed_documents(reply.text, reply.blocks)
    if not documents and malformed:
        return retry(turn, render_malformed(malformed))
    if not documents:
        if reply.cut:
            return retry(turn, render_cut_text())
        turn.done = True  # no document: the reply is the final answer (SPEC §2.5)
        return ""
    fences = DocumentFences(reply.text, documents)
    retries_before = turn.retries
    results: list[tuple[str, str]] = []
    errors: list[str] = []
    kinds: set[str] = set()
    for number, block in enumerate(documents, start=1):
        outcome = await run_document(turn, block, fences, (number, len(documents), reply.cut))
        if turn.done:
            return ""
        kinds.add(outcome.kind)
        if outcome.text:
            results.append((describe_document(block), outcome.text))
        if outcome.kind == "error":
            errors.append(outcome.text)
    if malformed:
        errors.append(report_error(turn, render_malformed(malformed)))
        results.append(("undecodable documents", errors[-1]))
    if errors and turn.retries == retries_before:
        count_retry(turn, errors[-1])
    if kinds == {"answer"} or kinds == {"answer", "plan"}:
        turn.done = True  # a text_response ends the turn (after the reply's other documents)
        return ""
    return join_results(results)


@dataclass(frozen=True)
class DocumentOutcome:
    kind: Literal["answer", "tool", "plan", "refused", "error"]
    """refused: a plan file that was not written (search/replace failed...): the model is
    told why and the plan goes on; error: an unusable document (counts as a retry)."""
    text: str = ""


async def run_document(
    turn: Turn,
    block: ActionBlock | ToolCallBlock,
    fences: DocumentFences,
    position: tuple[int, int, bool],
) -> DocumentOutcome:
    """Run one document of a reply: answer, tool call or plan file (or say why not)."""
    number, total, by_limit = position
    action: Action | None = None
    if not block.truncated:
        try:
            action = to_action(block, fences)
        except TruncatedBody:
            block = replace(block, truncated=True)
        except ActionError as error:
            return DocumentOutcome("error", report_error(turn, render_invalid_document(error)))
    if action is None:
        cut = render_cut_document(block, number=number, total=total, by_limit=by_limit)
        return DocumentOutcome("error", report_error(turn, cut))
    if isinstance(action, TextResponse):
        turn.say(action.text_response)
        return DocumentOutcome("answer")
    if isinstance(action, ToolCallAction):
        return DocumentOutcome("tool", await run_tool(turn, action.tool_call))
    return await apply_plan_document(turn, action)


def report_error(turn: Turn, message: str) -> str:
    """An error about one document, shown to the user (counted once per reply)."""
    turn.sink.emit(ErrorProgress(message=message, retry=turn.retries + 1))
    return message


def count_retry(turn: Turn, message: str) -> None:
    turn.retries += 1
    if turn.retries > turn.agent.max_retries:
        raise AgentError(
            f"the model sent {turn.retries} invalid documents or cut-off replies in this turn; "
            f"last error: {message}"
        )


def retry(turn: Turn, message: str) -> str:
    report_error(turn, message)
    count_retry(turn, message)
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


async def apply_plan_document(
    turn: Turn, action: StartMultiFile | ContinueMultiFile
) -> DocumentOutcome:
    """Apply the document's file to the plan (starting it first for start_multi_file)."""
    plans = turn.agent.plans
    if plans is None:
        return refused(turn, "no workspace folder is open, so files cannot be edited")
    op = await open_plan(turn, plans, action)
    if isinstance(op, str):
        return DocumentOutcome("error", op)
    if turn.plan is None:
        return refused(
            turn, "continue_multi_file without a plan: start with start_multi_file first"
        )
    if not turn.plan.remaining and plans.already_applied(turn.plan, op):
        turn.done = True  # the plan is complete and the model repeats its last file: done
        return DocumentOutcome("plan")
    plan = turn.plan
    try:
        path = await plans.apply(plan, op)
    except ApplyRefused as error:
        raise AgentError(f"the plan was rolled back: {error}") from None
    except (ActionError, CheckpointError) as error:
        turn.sink.emit(ErrorProgress(message=str(error), path=op.path))
        progress = render_plan_progress(plan.applied, plan.remaining)
        message = f"{op.action} {op.path} was refused, nothing was written: {error}\n{progress}"
        return DocumentOutcome("refused", message)
    turn.sink.emit(
        FileApplied(path=path, action=op.action, message=action.message, planned=path in plan.files)
    )
    return DocumentOutcome("plan", render_plan_progress(plan.applied, plan.remaining))


def refused(turn: Turn, message: str) -> DocumentOutcome:
    """A plan document that cannot be used as sent (counts as an invalid document)."""
    return DocumentOutcome("error", report_error(turn, message))


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
