"""agent/chat end to end: a real server process, a real client, the fake LLM over HTTP."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled
from pytest_lsp import LanguageClient

from tests.e2e.conftest import cancel, chat, start_chat
from tests.fakellm import FakeLLM, last_user_message

LONG_REPLY = "Streaming works: " + " ".join(f"word{i}" for i in range(40)) + "."


async def test_reply_streams_as_deltas_that_add_up_to_the_result(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    # 40 ms between chunks: more than the server's coalescing interval, so each is a delta
    reply = {"content": LONG_REPLY[:70], "chunk_size": 7, "delay_ms": 40}
    fakellm.set_script({"replies": [reply]})
    result = await chat(client, "Say something long")

    assert result["text"] == LONG_REPLY[:70]
    deltas = client.chat.texts(result["sessionId"])
    assert len(deltas) > 5
    assert "".join(deltas) == LONG_REPLY[:70]
    assert result["blocks"][0]["type"] == "text"
    assert last_user_message(fakellm.requests[-1]).startswith("Say something long")


async def test_work_done_progress_reports_the_deltas(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    fakellm.set_script({"replies": [{"content": "one two three four", "chunk_size": 4}]})
    client.progress_reports.setdefault("tok-1", [])
    result = await chat(client, "progress please", workDoneToken="tok-1")

    reports = client.progress_reports["tok-1"]
    assert reports[0].kind == "begin"
    assert reports[-1].kind == "end"
    streamed = "".join(r.message or "" for r in reports if r.kind == "report")
    assert streamed == result["text"] == "one two three four"


async def test_same_session_id_continues_the_conversation(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    fakellm.set_script({"replies": ["The capital of France is Paris.", "About 2.1 million."]})
    first = await chat(client, "What is the capital of France?")
    second = await chat(client, "And its population?", sessionId=first["sessionId"])

    assert second["sessionId"] == first["sessionId"]
    messages = fakellm.requests[-1].body["messages"]
    contents = [(m["role"], m["content"]) for m in messages]
    assert ("assistant", "The capital of France is Paris.") in contents
    assert contents[-1] == ("user", "And its population?")
    user_turns = [c for r, c in contents if r == "user"]
    assert user_turns == ["What is the capital of France?", "And its population?"]

    other = await chat(client, "New topic")
    assert other["sessionId"] != first["sessionId"]
    assert [m["role"] for m in fakellm.requests[-1].body["messages"]] == ["system", "user"]


async def test_cancel_stops_the_stream_and_answers_request_cancelled(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    slow = {"content": "x" * 400, "chunk_size": 2, "delay_ms": 20}  # 4 s of streaming
    fakellm.set_script({"replies": [slow]})
    request = start_chat(client, "talk slowly", "chat-to-cancel")
    await client.chat.wait_for(lambda items: len(items) >= 3)
    cancel(client, "chat-to-cancel")
    with pytest.raises(JsonRpcException) as cancelled:
        await request
    assert cancelled.value.code == JsonRpcRequestCancelled.CODE
    # The stream stopped: the next turn's reply arrives, and the cancelled one sent no more.
    received = len(client.chat.items)
    fakellm.set_script({"replies": [{"content": "after cancel", "delay_ms": 100}]})
    result = await chat(client, "still there?")
    assert result["text"] == "after cancel"
    late = [p for p in client.chat.items[received:] if p["sessionId"] != result["sessionId"]]
    assert len(late) <= 2, "the cancelled turn kept streaming"


async def test_429_with_retry_after_is_retried(client: LanguageClient, fakellm: FakeLLM) -> None:
    fakellm.set_script({"replies": [{"fault": "429", "retry_after": 0}, "Recovered."]})
    result = await chat(client, "hello")
    assert result["text"] == "Recovered."
    assert len(fakellm.requests) == 2


async def test_500_forever_gives_a_clear_error_and_the_server_keeps_serving(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    fakellm.set_script({"replies": [{"fault": "500"}]})
    with pytest.raises(JsonRpcException) as failure:
        await chat(client, "hello")
    message = str(failure.value)
    assert "openai" in message
    assert "HTTP 500" in message
    assert "Hint:" in message
    assert len(fakellm.requests) == 4  # the first try and maxRetries (3) retries

    fakellm.set_script({"replies": ["Back again."]})
    result = await chat(client, "hello again")
    assert result["text"] == "Back again."


async def test_invalid_params_get_invalid_params_and_the_server_survives(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    with pytest.raises(JsonRpcException) as failure:
        await client.protocol.send_request_async("agent/chat", {"sessionId": "s"})
    assert "message" in str(failure.value)
    with pytest.raises(JsonRpcException):
        await client.protocol.send_request_async("agent/chat", {"message": 42})
    result = await chat(client, "fine now")
    assert result["text"] == "Hello from the fake LLM."
