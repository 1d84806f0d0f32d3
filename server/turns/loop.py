"""One chat turn: the agent loop (SPEC §2.5).

stream a reply -> blocks -> text to the user; a tool call runs and its result goes back to
the model; plan documents apply one file each and the model is told what remains; invalid,
truncated or suspect documents get a precise error back (at most `max_retries` per turn).
The same code serves the LSP handler and the CLI; they differ in their sink and applier.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace

import attrs

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
from actions.prompt import render_invalid_document
from actions.schema import (
    Action,
    TextResponse,
    ToolCallAction,
    ToolCallSpec,
)
from actions.tool_adapters import ToolAdapter
from actions.tools import Tool
from parsing import ActionBlock, Block, StreamParser, TextBlock, ToolCallBlock
from parsing.blocks import merge_text
from parsing.malformed import malformed_documents
from server.history import trim_history
from server.protocol import (
    ChatContext,
    PlanProgress,
    TextRecord,
    ToolCallResult,
    ToolCallStarted,
    block_record,
)
from server.providers.base import ChatMessage, NativeToolCall, StreamChunk
from server.providers.constraints import ConstrainedProvider
from server.turns.plan import abandon_plan, apply_plan_document, finish_plan, plan_summary
from server.turns.state import turn_state
from server.turns.turn import (
    Agent,
    AgentError,
    ChatSession,
    DocumentOutcome,
    ProgressSink,
    Turn,
    TurnOutcome,
    count_retry,
    report_error,
    retry,
)


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
        prompt = system_prompt(
            agent.adapter, tuple(manifests), agent.workspace_name, agent.folders, agent.rules
        )
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
    rules: str = "",
) -> str:
    """The system prompt, rendered once per set of tools, workspace, folders and rules files
    (manifests and the adapter are immutable; turns with the same rules send the same prompt)."""
    return adapter.system_prompt(
        manifests, workspace_name=workspace_name, folders=folders, rules=rules
    )


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
