"""Every HTTP provider reuses its connection: N requests, one TCP connection accepted by the
fake LLM (counted from its listening socket)."""

from __future__ import annotations

import pytest

from server.config import Config
from server.providers import make_provider
from server.providers.base import ProviderError
from tests.fakellm import FakeLLM
from tests.unit.providers.conftest import READ_FILE, ask, collect

PROVIDERS = ["openai", "anthropic", "ollama"]
TURNS = 12


def provider_for(llm: FakeLLM, name: str, **settings: object):  # type: ignore[no-untyped-def]
    base = llm.base_url_openai if name == "openai" else llm.url
    values: dict[str, object] = {
        "provider": name,
        "baseUrl": base,
        "model": "fake-model",
        "retryBaseDelay": 0.01,
        **settings,
    }
    return make_provider(Config(**values))  # type: ignore[arg-type]


@pytest.mark.parametrize("name", PROVIDERS)
async def test_many_requests_use_one_connection(llm: FakeLLM, name: str) -> None:
    call = {"name": "read_file", "arguments": {"path": "a.py"}}
    replies = [{"content": f"answer {i}", "chunk_size": 3} for i in range(TURNS)]
    replies[3] = {"content": "looking", "tool_calls": [call]}
    llm.set_script({"replies": replies})
    provider = provider_for(llm, name)
    texts = [(await collect(provider, ask(f"q{i}"), tools=[READ_FILE])).text for i in range(TURNS)]
    assert texts[0] == "answer 0"
    assert texts[-1] == f"answer {TURNS - 1}"
    assert len(llm.requests) == TURNS
    assert llm.connections == 1


@pytest.mark.parametrize("name", PROVIDERS)
async def test_an_error_status_keeps_the_connection(llm: FakeLLM, name: str) -> None:
    llm.set_script({"replies": [{"fault": "503", "retry_after": 0}, "one", {"status": 400}, "two"]})
    provider = provider_for(llm, name)
    assert (await collect(provider, ask("a"))).text == "one"
    with pytest.raises(ProviderError):
        await collect(provider, ask("b"))
    assert (await collect(provider, ask("c"))).text == "two"
    assert len(llm.requests) == 4
    assert llm.connections == 1


@pytest.mark.parametrize("name", PROVIDERS)
async def test_after_a_reset_one_new_connection_is_reused(llm: FakeLLM, name: str) -> None:
    reset = {"content": "a long partial answer", "chunk_size": 2, "fault": "reset_mid_stream"}
    llm.set_script({"replies": [reset, "after", "again", "and again"]})
    provider = provider_for(llm, name, maxRetries=0)
    with pytest.raises(ProviderError):
        await collect(provider, ask("a"))
    for _ in range(3):
        await collect(provider, ask("b"))
    assert llm.connections == 2
