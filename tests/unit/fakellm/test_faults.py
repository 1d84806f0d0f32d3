"""Scripted faults, on every protocol: what a provider client actually experiences."""

from __future__ import annotations

import concurrent.futures

import httpx
import pytest

from tests.fakellm import FakeLLM
from tests.unit.fakellm._client import PROTOCOLS, post, stream_chat

TEXT = "The quick brown fox jumps over the lazy dog."


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("fault", ["500", "429", "503"])
def test_error_faults_answer_with_status_and_protocol_error(
    llm: FakeLLM, protocol: str, fault: str
) -> None:
    llm.set_script({"replies": [{"fault": fault}]})
    response = post(llm, protocol)
    assert response.status_code == int(fault)
    assert "retry-after" not in response.headers
    body = response.json()
    assert "error" in body
    if protocol == "anthropic":
        assert body["type"] == "error"


@pytest.mark.parametrize("fault", ["429", "503"])
def test_retry_after_header(llm: FakeLLM, fault: str) -> None:
    llm.set_script({"replies": [{"fault": fault, "retry_after": 1.5}]})
    response = post(llm, "openai")
    assert response.headers["retry-after"] == "1.5"


def test_custom_status(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"status": 401}, "after"]})
    response = post(llm, "anthropic")
    assert response.status_code == 401
    assert response.json()["error"]["type"] == "authentication_error"
    assert post(llm, "anthropic", stream=False).json()["content"][0]["text"] == "after"


def test_error_forever_means_every_request(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"fault": "500"}]})
    assert [post(llm, "ollama").status_code for _ in range(4)] == [500] * 4


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_drop_mid_stream_sends_part_then_breaks(llm: FakeLLM, protocol: str) -> None:
    llm.set_script({"replies": [{"content": TEXT, "fault": "drop_mid_stream"}, TEXT]})
    out, error = stream_chat(llm, protocol)
    assert isinstance(error, httpx.RemoteProtocolError)
    assert out.content
    assert TEXT.startswith(out.content)
    assert len(out.content) < len(TEXT)
    assert not out.done
    assert out.finish is None
    again, error = stream_chat(llm, protocol)
    assert error is None
    assert again.content == TEXT


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_drop_mid_stream_without_streaming_gives_incomplete_body(
    llm: FakeLLM, protocol: str
) -> None:
    llm.set_script({"replies": [{"content": TEXT, "fault": "drop_mid_stream"}]})
    with pytest.raises(httpx.RemoteProtocolError):
        post(llm, protocol, stream=False)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_malformed_sse_mixes_garbage_into_a_valid_stream(llm: FakeLLM, protocol: str) -> None:
    llm.set_script({"replies": [{"content": TEXT, "fault": "malformed_sse"}]})
    out, error = stream_chat(llm, protocol)
    assert error is None
    assert len(out.garbage) >= 2
    assert out.content == TEXT
    assert out.done


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_malformed_without_streaming_is_not_json(llm: FakeLLM, protocol: str) -> None:
    llm.set_script({"replies": [{"content": TEXT, "fault": "malformed_sse"}]})
    response = post(llm, protocol, stream=False)
    assert response.status_code == 200
    with pytest.raises(ValueError, match=r"Expecting|Extra|Unterminated|Invalid"):
        response.json()


def test_slow_first_byte_trips_a_client_read_timeout(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": "late", "fault": "slow_first_byte"}, "fast"]})
    timeout = httpx.Timeout(10, read=0.05)
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(
            llm.base_url_openai + "/chat/completions", json={"messages": []}, timeout=timeout
        )
    out, error = stream_chat(llm, "openai")
    assert error is None
    assert out.content == "fast"


def test_first_byte_delay_then_a_normal_reply(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": "late", "first_byte_delay_ms": 20, "delay_ms": 5}]})
    out, error = stream_chat(llm, "anthropic")
    assert error is None
    assert out.content == "late"


def test_stop_interrupts_a_slow_stream(llm: FakeLLM) -> None:
    llm.set_script({"replies": [{"content": TEXT, "chunk_size": 1, "delay_ms": 60_000}]})
    with httpx.stream(
        "POST",
        llm.base_url_openai + "/chat/completions",
        json={"messages": [], "stream": True},
        timeout=30,
    ) as response:
        lines = response.iter_lines()
        assert next(lines).startswith("data: ")
        llm.stop()
        with pytest.raises(httpx.RemoteProtocolError):
            list(lines)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_reset_mid_stream_sends_part_then_resets(llm: FakeLLM, protocol: str) -> None:
    llm.set_script({"replies": [{"content": TEXT, "fault": "reset_mid_stream"}, TEXT]})
    out, error = stream_chat(llm, protocol)
    assert isinstance(error, httpx.ReadError | httpx.RemoteProtocolError)
    assert out.content
    assert len(out.content) < len(TEXT)
    assert not out.done
    assert stream_chat(llm, protocol)[0].content == TEXT


@pytest.mark.parametrize(
    ("protocol", "framed"),
    [
        ("openai", 'data: {"choices": "x"}\n\ndata: not json\n\n'),
        ("anthropic", 'event: ping\ndata: {"type": "ping"}\n\ndata: not json\n\n'),
        ("ollama", '{"choices": "x"}\nnot json\n'),
    ],
)
def test_scripted_events_are_sent_exactly(llm: FakeLLM, protocol: str, framed: str) -> None:
    first = {"type": "ping"} if protocol == "anthropic" else {"choices": "x"}
    llm.set_script({"replies": [{"events": [first, "not json"]}]})
    response = post(llm, protocol)
    assert response.status_code == 200
    assert response.text == framed


def test_a_held_reply_waits_for_its_gate_while_others_are_answered(llm: FakeLLM) -> None:
    llm.set_script(
        {"rules": [{"match": "slow", "reply": {"content": "late", "hold": "g"}}], "default": "now"}
    )
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        held = pool.submit(post, llm, "openai", "slow", False)
        llm.wait_for_requests(1, timeout=10)
        assert post(llm, "openai", "fast", False).json()["choices"][0]["message"]["content"] == (
            "now"
        )
        assert not held.done()  # still held: nothing sent before the gate opens
        llm.release("g")
        assert held.result(timeout=10).json()["choices"][0]["message"]["content"] == "late"


def test_a_held_reply_gives_up_when_the_server_stops() -> None:
    llm = FakeLLM({"replies": [{"content": "never", "hold": "g"}]}).start()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        held = pool.submit(post, llm, "openai", "hi", False)
        llm.wait_for_requests(1, timeout=10)
        llm.stop()
        with pytest.raises(httpx.HTTPError):
            held.result(timeout=10)
