"""One chat turn, in-process: answers, tool calls, invalid and truncated documents, limits."""

from __future__ import annotations

import pytest

from server.protocol import (
    ActionRecord,
    ErrorProgress,
    TextDelta,
    TextRecord,
    ToolCallResult,
    ToolCallStarted,
)
from server.providers.base import NativeToolCall
from server.turns.turn import AgentError
from tests.inprocess.conftest import Harness, Reply, answer, doc, tool


async def test_a_plain_reply_is_the_answer_streamed_as_it_arrives(harness: Harness) -> None:
    provider, outcome = await harness.turn([Reply("Hello there, how can I help?", chunk=4)])
    assert outcome.text == "Hello there, how can I help?"
    deltas = harness.sink.of(TextDelta)
    assert len(deltas) > 1  # streamed, not sent at the end
    assert "".join(d.delta for d in deltas) == outcome.text
    assert outcome.blocks == [TextRecord(start=0, end=28, text=outcome.text, reply=0)]
    assert outcome.plan is None
    assert outcome.checkpoint_id is None
    assert [m.role for m in harness.session.messages] == ["user", "assistant"]
    assert len(provider.received) == 1


async def test_the_session_keeps_the_conversation_for_the_next_turn(harness: Harness) -> None:
    await harness.turn(["First answer."], message="first question")
    provider, _ = await harness.turn(["Second answer."], message="second question")
    sent = [(m.role, m.content) for m in provider.received[0] if m.role != "system"]
    assert sent == [
        ("user", "first question"),
        ("assistant", "First answer."),
        ("user", "second question"),
    ]


async def test_a_text_response_document_is_the_answer(harness: Harness) -> None:
    _, outcome = await harness.turn(["Sure. " + answer("All done.")])
    assert outcome.text == "Sure. All done."
    assert isinstance(outcome.blocks[1], ActionRecord)
    assert outcome.blocks[1].document == {"action": "text_response", "text_response": "All done."}


async def test_a_tool_call_runs_and_its_result_goes_back_to_the_model(harness: Harness) -> None:
    provider, outcome = await harness.turn(
        [tool("read_file", paths=["/src/app.py"]), answer("It prints v1.")]
    )
    assert outcome.text == "It prints v1."
    [call] = harness.sink.of(ToolCallStarted)
    assert (call.name, call.args) == ("read_file", {"paths": ["/src/app.py"]})
    [result] = harness.sink.of(ToolCallResult)
    assert result.ok
    assert "print('v1')" in result.text
    assert "print('v1')" in provider.last_user_message()
    assert [b.reply for b in outcome.blocks] == [0, 1]


async def test_a_native_tool_call_gets_a_tool_message_back(harness: Harness) -> None:
    call = NativeToolCall("call-1", "list_files", {})
    provider, outcome = await harness.turn([Reply("", tool_calls=(call,)), "Two files."])
    assert outcome.text == "Two files."
    tool_message = provider.received[1][-1]
    assert (tool_message.role, tool_message.tool_call_id) == ("tool", "call-1")
    assert "src/app.py" in tool_message.content
    assert "old.txt" in tool_message.content


async def test_a_failing_tool_is_reported_to_the_model_not_raised(harness: Harness) -> None:
    provider, outcome = await harness.turn(
        [tool("read_file", paths=["/missing.py"]), answer("That file does not exist.")]
    )
    [result] = harness.sink.of(ToolCallResult)
    assert not result.ok
    assert "missing.py" in provider.last_user_message()
    assert outcome.text == "That file does not exist."


async def test_an_invalid_document_is_sent_back_with_the_error_and_retried(
    harness: Harness,
) -> None:
    invalid = doc(action="start_multi_file", plan={"description": "x"})  # no files, no first
    provider, outcome = await harness.turn([invalid, answer("Sorry, nothing to change.")])
    [error] = harness.sink.of(ErrorProgress)
    assert error.retry == 1
    assert "files_to_modify" in error.message
    assert "files_to_modify" in provider.last_user_message()
    assert outcome.text == "Sorry, nothing to change."
    assert outcome.checkpoint_id is None


async def test_too_many_invalid_documents_end_the_turn_and_keep_no_history(
    harness: Harness,
) -> None:
    invalid = doc(action="continue_multi_file", next_file={"action": "explode"})
    with pytest.raises(AgentError, match="invalid documents"):
        await harness.turn([invalid] * 4)
    assert [e.retry for e in harness.sink.of(ErrorProgress)] == [1, 2, 3, 4]
    assert harness.session.messages == []  # the failed turn is not part of the conversation


async def test_a_reply_cut_at_max_tokens_never_applies_its_document(harness: Harness) -> None:
    cut = doc(
        action="start_multi_file",
        plan={"description": "rewrite", "files_to_modify": ["/src/app.py"]},
        first_file={"action": "update_file", "file": {"path": "/src/app.py", "content": "x"}},
    )[:-20]
    provider, outcome = await harness.turn([Reply(cut, finish="length"), answer("Gave up.")])
    assert (harness.root / "src" / "app.py").read_text() == "print('v1')\n"
    [error] = harness.sink.of(ErrorProgress)
    assert "cut off" in error.message
    assert "cut off" in provider.last_user_message()
    assert outcome.blocks[0].truncated
    assert outcome.checkpoint_id is None


async def test_the_turn_limit_is_an_error(harness: Harness) -> None:
    harness.config = type(harness.config)(maxTurns=2)
    with pytest.raises(AgentError, match="maxTurns=2"):
        await harness.turn([tool("list_files")] * 3)
    assert len(harness.sink.of(ToolCallStarted)) == 2
