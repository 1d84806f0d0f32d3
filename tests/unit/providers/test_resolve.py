"""Provider resolution order, with fake servers standing in for Ollama and llama.cpp."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from server.config import Config, from_environment, merge
from server.providers import make_provider
from server.providers.local import bundled_model, llama_installed
from server.resolve import (
    LOCAL_PROBE_ENV,
    OLLAMA_PROBE_ENV,
    OPENAI_PROBE_ENV,
    NoProviderError,
    explicit_keys,
    resolve_provider,
)
from tests.fakellm import FakeLLM
from tests.unit.providers.conftest import ask, collect

DEAD = "http://127.0.0.1:9"  # the discard port: nothing listens there


@pytest.fixture
def ollama() -> Iterator[FakeLLM]:
    with FakeLLM({"model": "llama3.2:1b", "replies": ["from ollama"]}) as server:
        yield server


@pytest.fixture
def llamacpp() -> Iterator[FakeLLM]:
    with FakeLLM({"model": "qwen2.5-coder-0.5b", "replies": ["from llama.cpp"]}) as server:
        yield server


def env(ollama: str = DEAD, openai: str = DEAD, local: str = "off", **extra: str) -> dict[str, str]:
    return {OLLAMA_PROBE_ENV: ollama, OPENAI_PROBE_ENV: openai, LOCAL_PROBE_ENV: local, **extra}


def config_from(environ: dict[str, str], **settings: object) -> Config:
    config, problems = from_environment(environ)
    assert not problems
    config, problems = merge(config, settings, "test")
    assert not problems
    return config


async def test_an_explicit_provider_wins_and_nothing_is_probed(ollama: FakeLLM) -> None:
    environ = env(ollama=ollama.url, AGENT_LS_PROVIDER="ollama")
    settings = {"provider": "anthropic"}
    found = await resolve_provider(config_from(environ, **settings), {"provider"}, environ)
    assert found.provider_name == "anthropic"
    assert "agentLs.provider" in found.reason
    assert ollama.requests == []


async def test_the_environment_wins_over_auto_detection(ollama: FakeLLM) -> None:
    environ = env(ollama=ollama.url, AGENT_LS_PROVIDER="openai")
    found = await resolve_provider(config_from(environ), set(), environ)
    assert found.provider_name == "openai"
    assert "AGENT_LS_PROVIDER" in found.reason
    assert ollama.requests == []


async def test_a_base_url_in_the_environment_counts_as_configured(ollama: FakeLLM) -> None:
    environ = env(ollama=ollama.url, AGENT_LS_BASE_URL="http://127.0.0.1:9999/v1")
    found = await resolve_provider(config_from(environ), set(), environ)
    assert (found.provider_name, found.config.baseUrl) == ("openai", "http://127.0.0.1:9999/v1")
    assert "AGENT_LS_BASE_URL" in found.reason


async def test_model_path_in_the_settings_chooses_local() -> None:
    environ = env()
    config = config_from(environ, modelPath="/models/any.gguf")
    found = await resolve_provider(config, {"modelPath"}, environ)
    assert found.provider_name == "local"


async def test_ollama_is_detected_with_its_first_model_and_answers(ollama: FakeLLM) -> None:
    environ = env(ollama=ollama.url)
    found = await resolve_provider(config_from(environ), set(), environ)
    assert found.provider_name == "ollama"
    assert found.config.baseUrl == ollama.url
    assert found.config.model == "llama3.2:1b"
    assert "Ollama" in found.reason
    assert [c.source for c in found.candidates_tried] == ["settings", "environment", "ollama"]
    reply = await collect(make_provider(found.config), ask("hi"))
    assert reply.text == "from ollama"


async def test_an_openai_compatible_server_is_detected_when_ollama_is_absent(
    llamacpp: FakeLLM,
) -> None:
    environ = env(openai=llamacpp.url)
    found = await resolve_provider(config_from(environ), set(), environ)
    assert found.provider_name == "openai"
    assert found.config.baseUrl == llamacpp.url + "/v1"
    assert found.config.model == "qwen2.5-coder-0.5b"
    assert "nothing answers" in found.candidates_tried[2].detail
    assert (await collect(make_provider(found.config), ask("hi"))).text == "from llama.cpp"


async def test_ollama_is_preferred_when_both_answer(ollama: FakeLLM, llamacpp: FakeLLM) -> None:
    environ = env(ollama=ollama.url, openai=llamacpp.url)
    found = await resolve_provider(config_from(environ), set(), environ)
    assert found.provider_name == "ollama"


async def test_a_model_the_user_set_is_kept_on_a_detected_server(ollama: FakeLLM) -> None:
    environ = env(ollama=ollama.url)
    found = await resolve_provider(config_from(environ, model="qwen3:4b"), {"model"}, environ)
    assert (found.provider_name, found.config.model) == ("ollama", "qwen3:4b")


async def test_nothing_found_says_exactly_how_to_configure_one() -> None:
    environ = env()
    with pytest.raises(NoProviderError) as failure:
        await resolve_provider(config_from(environ), set(), environ)
    message = str(failure.value)
    assert "pip install 'agent-ls[local]'" in message
    assert "AGENT_LS_PROVIDER" in message
    assert "ollama serve" in message
    assert [c.source for c in failure.value.candidates] == [
        "settings",
        "environment",
        "ollama",
        "openai",
        "local",
    ]


@pytest.mark.skipif(
    not llama_installed() or bundled_model() is None, reason="the local extra is not installed"
)
async def test_the_embedded_model_is_the_last_resort() -> None:
    environ = env(local="on")
    found = await resolve_provider(config_from(environ), set(), environ)
    assert found.provider_name == "local"
    assert "embedded model" in found.reason


def test_explicit_keys_are_the_keys_set_in_any_layer() -> None:
    assert explicit_keys({"model": "m", "baseUrl": None}, None, {"provider": "x"}) == {
        "model",
        "provider",
    }
