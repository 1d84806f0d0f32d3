"""Script semantics: reply order, repetition, rules, default, validation, control."""

from __future__ import annotations

import httpx
import pytest

from tests.fakellm import FakeLLM, Reply, Script, parse_reply
from tests.unit.fakellm._client import post


def texts(llm: FakeLLM, *messages: str) -> list[str]:
    return [
        post(llm, "openai", m, stream=False).json()["choices"][0]["message"]["content"]
        for m in messages
    ]


def test_replies_are_consumed_in_order_and_the_last_repeats(llm: FakeLLM) -> None:
    llm.set_script({"replies": ["one", "two", "three"]})
    assert texts(llm, *"abcdef") == ["one", "two", "three", "three", "three", "three"]


def test_replies_are_shared_across_protocols(llm: FakeLLM) -> None:
    llm.set_script({"replies": ["one", "two", "three"]})
    assert post(llm, "anthropic", stream=False).json()["content"][0]["text"] == "one"
    assert post(llm, "ollama", stream=False).json()["message"]["content"] == "two"
    assert texts(llm, "x") == ["three"]


def test_rules_match_the_last_user_message_first_rule_wins(llm: FakeLLM) -> None:
    llm.set_script(
        {
            "rules": [
                {"match": "fix", "reply": "fixed"},
                {"match": "fix the bug", "reply": "never: an earlier rule matches"},
                {"match": "explain", "reply": "explained"},
            ],
            "default": "default",
        }
    )
    assert texts(llm, "please fix the bug", "explain this", "hello") == [
        "fixed",
        "explained",
        "default",
    ]


def test_only_the_last_user_message_counts(llm: FakeLLM) -> None:
    llm.set_script({"rules": [{"match": "fix", "reply": "fixed"}], "default": "default"})
    body = {
        "messages": [
            {"role": "user", "content": "fix it"},
            {"role": "assistant", "content": "fix?"},
            {"role": "user", "content": [{"type": "text", "text": "no, explain"}]},
        ]
    }
    response = httpx.post(llm.base_url_openai + "/chat/completions", json=body)
    assert response.json()["choices"][0]["message"]["content"] == "default"


def test_rules_come_before_replies_and_do_not_consume_them(llm: FakeLLM) -> None:
    llm.set_script({"rules": [{"match": "ping", "reply": "pong"}], "replies": ["r1", "r2"]})
    assert texts(llm, "ping", "a", "ping", "b", "c") == ["pong", "r1", "pong", "r2", "r2"]


def test_no_reply_for_a_request_is_a_loud_500(llm: FakeLLM) -> None:
    llm.set_script({"rules": [{"match": "only this", "reply": "ok"}]})
    response = post(llm, "openai", "something else")
    assert response.status_code == 500
    assert "no scripted reply" in response.json()["error"]["message"]


def test_set_script_rewinds_and_reset_clears(llm: FakeLLM) -> None:
    llm.set_script({"replies": ["a", "b"]})
    assert texts(llm, "x", "y") == ["a", "b"]
    llm.set_script({"replies": ["c", "d"]})
    assert texts(llm, "x") == ["c"]
    assert len(llm.requests) == 3
    llm.reset()
    assert llm.requests == []
    assert texts(llm, "x") == ["c"]


def test_control_endpoints(llm: FakeLLM) -> None:
    control = llm.url + "/_control"
    assert httpx.post(control + "/script", json={"replies": ["via http"]}).json() == {"ok": True}
    assert texts(llm, "hello") == ["via http"]
    recorded = httpx.get(control + "/requests").json()
    assert [r["path"] for r in recorded] == ["/v1/chat/completions"]
    assert recorded[0]["body"]["messages"][0]["content"] == "hello"
    assert recorded[0]["protocol"] == "openai"
    httpx.post(control + "/reset")
    assert httpx.get(control + "/requests").json() == []
    assert texts(llm, "again") == ["via http"]


def test_control_rejects_a_bad_script_and_keeps_the_old_one(llm: FakeLLM) -> None:
    llm.set_script({"replies": ["kept"]})
    response = httpx.post(llm.url + "/_control/script", json={"replies": [{"fault": "boom"}]})
    assert response.status_code == 400
    assert "boom" in response.json()["error"]
    assert texts(llm, "x") == ["kept"]


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ({"replys": []}, "unknown script keys"),
        ({"replies": [{"fault": "404"}]}, "unknown fault"),
        ({"replies": [{"contents": "x"}]}, "unknown reply keys"),
        ({"replies": [{"chunk_size": 0}]}, "chunk_size"),
        ({"replies": [{"status": 200}]}, "status"),
        ({"replies": [{"finish_reason": "tool_calls"}]}, "finish_reason"),
        ({"replies": [{"tool_calls": [{"arguments": {}}]}]}, "name"),
        ({"rules": [{"match": "x"}]}, "no 'reply'"),
        ({"replies": [42]}, "string or an object"),
        ([], "must be an object"),
    ],
)
def test_invalid_scripts_fail_loudly(script: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Script.from_json(script)


def test_reply_defaults() -> None:
    reply = parse_reply("hi")
    assert reply == Reply(content="hi")
    assert reply.chunk_size == 4
    assert reply.error_status is None
    assert parse_reply({"fault": "slow_first_byte"}).first_byte_delay == 1.0
    assert parse_reply({"fault": "429", "status": 418}).error_status == 418
