"""Every request is recorded, typed; keys are kept for assertions but never printed."""

from __future__ import annotations

import threading

import httpx
import pytest

from tests.fakellm import FakeLLM, last_user_message
from tests.unit.fakellm._client import post

SECRET = "sk-test-secret-123"


def test_requests_are_recorded_with_protocol_headers_and_body(llm: FakeLLM) -> None:
    llm.set_script({"default": "ok"})
    httpx.post(
        llm.base_url_openai + "/chat/completions?x=1",
        json={"model": "m", "messages": []},
        headers={"Authorization": f"Bearer {SECRET}"},
    )
    httpx.post(
        llm.url + "/v1/messages",
        json={"messages": [], "max_tokens": 5},
        headers={"x-api-key": SECRET},
    )
    httpx.get(llm.url + "/api/tags")
    openai, anthropic, ollama = llm.requests
    assert (openai.method, openai.path, openai.query) == ("POST", "/v1/chat/completions", "x=1")
    assert openai.protocol == "openai"
    assert openai.body == {"model": "m", "messages": []}
    assert openai.headers["authorization"] == f"Bearer {SECRET}"
    assert anthropic.protocol == "anthropic"
    assert anthropic.headers["x-api-key"] == SECRET
    assert (ollama.method, ollama.protocol, ollama.body) == ("GET", "ollama", None)
    assert openai.time <= anthropic.time <= ollama.time


def test_repr_never_shows_keys(llm: FakeLLM) -> None:
    llm.set_script({"default": "ok"})
    httpx.post(
        llm.url + "/v1/messages",
        json={"messages": []},
        headers={"x-api-key": SECRET, "Authorization": f"Bearer {SECRET}"},
    )
    text = repr(llm.requests[0]) + str(llm.requests)
    assert SECRET not in text
    assert "<redacted>" in text


def test_wait_for_requests_wakes_on_arrival(llm: FakeLLM) -> None:
    llm.set_script({"default": "ok"})
    sender = threading.Thread(target=lambda: [post(llm, "ollama") for _ in range(3)])
    sender.start()
    got = llm.wait_for_requests(3, timeout=10)
    sender.join()
    assert len(got) == 3
    assert all(r.path == "/api/chat" for r in got)


def test_wait_for_requests_times_out_with_a_clear_error(llm: FakeLLM) -> None:
    with pytest.raises(TimeoutError, match="for 1 requests, got 0"):
        llm.wait_for_requests(1, timeout=0.01)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"messages": [{"role": "user", "content": "plain"}]}, "plain"),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "a"},
                            {"type": "image_url"},
                            {"type": "text", "text": "b"},
                        ],
                    }
                ]
            },
            "a\nb",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": "t", "content": "file body"}
                        ],
                    }
                ]
            },
            "file body",
        ),
        ({"messages": [{"role": "user", "content": "q"}, {"role": "tool", "content": "r"}]}, "q"),
        ({"messages": [{"role": "system", "content": "s"}]}, ""),
        ({"prompt": "x"}, ""),
        (None, ""),
    ],
)
def test_last_user_message(body: object, expected: str) -> None:
    assert last_user_message(body) == expected  # type: ignore[arg-type]


def test_last_user_message_of_a_recorded_request(llm: FakeLLM) -> None:
    llm.set_script({"default": "ok"})
    post(llm, "anthropic", "what is this?")
    assert last_user_message(llm.requests[0]) == "what is this?"
    assert llm.requests[0].user_message == "what is this?"
