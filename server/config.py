"""Configuration: defaults < environment < initializationOptions < workspace/configuration.

Every source is validated key by key: a bad value is reported (key + expected type) and the
value from the lower-priority source is kept, so one typo never takes the server down.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from server.mcp_config import CONFIG_ENV, McpServerSpec, load_file, parse_servers
from server.redact import redact, remember, remember_location
from server.urls import base_url_problem, index_url_problem

ENV_VARS = {
    "provider": "AGENT_LS_PROVIDER",
    "baseUrl": "AGENT_LS_BASE_URL",
    "model": "AGENT_LS_MODEL",
    "modelPath": "AGENT_LS_MODEL_PATH",
    "cliCommand": "AGENT_LS_CLI_COMMAND",
    "indexUrl": "AGENT_LS_INDEX_URL",
    "indexSummaries": "AGENT_LS_INDEX_SUMMARIES",
    "index": "AGENT_LS_INDEX",
    "review": "AGENT_LS_REVIEW",
    "allowSecretFiles": "AGENT_LS_ALLOW_SECRET_FILES",
    "commands": "AGENT_LS_COMMANDS",
}
API_KEY_ENV = "AGENT_LS_API_KEY"


@dataclass(frozen=True)
class Config:
    """Effective settings. Field names are the `agentLs.*` keys."""

    provider: str = "openai"
    baseUrl: str = "http://127.0.0.1:8080/v1"
    model: str = "default"
    apiKeyEnv: str = API_KEY_ENV
    requestTimeout: float = 120.0
    connectTimeout: float = 10.0
    maxRetries: int = 3
    retryBaseDelay: float = 0.5
    maxTurns: int = 25
    maxTokens: int = 4096  # reply limit: anthropic max_tokens, ollama num_predict, local
    modelPath: str = ""  # local: a GGUF file; "" = the bundled SmolLM2 of the `local` extra
    contextSize: int = 8192  # the model's context window (tokens): local model size, history trim
    cliCommand: tuple[str, ...] = ()  # cli: the agent command (argv)
    cliTimeout: float = 600.0  # cli: seconds before the command is killed
    toolProtocol: str = "json"  # json | xml | native: see actions/tool_adapters.py
    indexUrl: str = ""  # retrieval index: "" = embedded SQLite; postgresql://... for a team
    index: bool = True  # False: no workspace index (no build, no file, no search_docs tool)
    # The provider writes the index's table / long-code summaries (one request per new table:
    # a cost on a cloud provider); False: the deterministic summaries only.
    indexSummaries: bool = True
    # Secret files the user lets agent-ls read, list and write (gitignore globs; ["*"]: all).
    allowSecretFiles: tuple[str, ...] = ()
    review: str = "off"  # on: plans are staged until agent.accept (actions/review.py)
    # The run_command tool (actions/tools/run_command.py): ask (the user consents to each line),
    # allow (run without asking: trust), off (not offered). Lines matching a glob of
    # commandAllowList run without asking; commandTimeout: seconds before the group is stopped.
    commands: str = "ask"
    commandAllowList: tuple[str, ...] = ()
    commandTimeout: float = 120.0
    # MCP servers (server/mcp/config.py: {"<name>": {"command", ...} | {"url", ...}}) and the
    # seconds one of their tool calls may take before it is cancelled.
    mcpServers: tuple[McpServerSpec, ...] = ()
    mcpTimeout: float = 60.0

    def api_key(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The secret from `apiKeyEnv`, else AGENT_LS_API_KEY (see `clean_api_key`); never
        stored in logs or results. Raises ApiKeyError for a value that cannot be a key."""
        env = os.environ if environ is None else environ
        names = dict.fromkeys((self.apiKeyEnv, API_KEY_ENV))
        return next((k for n in names if (k := clean_api_key(n, env.get(n)))), None)


class ApiKeyError(ValueError):
    """An API key variable holds something that cannot be a key. The message names the
    variable and the problem, never the value."""

    def __init__(self, variable: str, problem: str) -> None:
        super().__init__(f"the API key in {variable} contains {problem}")
        self.variable = variable


def clean_api_key(variable: str, value: str | None) -> str | None:
    """The key in `value` without surrounding whitespace (a pasted `sk-…\\r\\n` works);
    None when empty. Any other space, control or non-ASCII character is an ApiKeyError:
    sent in a header it would fail with the key in the error text. The value, in every
    form, is masked in all output from here on (server/redact.py)."""
    remember(value)
    key = (value or "").strip()
    if not key:
        return None
    bad = next((i for i, c in enumerate(key) if not "!" <= c <= "~"), None)
    if bad is not None:
        char = key[bad]
        what = "a space" if char == " " else "a non-ASCII character" if ord(char) > 127 else None
        problem = f"{what or 'a control character'} (character {bad + 1} of {len(key)})"
        raise ApiKeyError(variable, problem)
    return key


def _non_empty_str(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("a non-empty string")
    return value


def _positive_float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError("a positive number (seconds)")
    try:
        number = float(value)
    except ValueError:
        raise ValueError("a positive number (seconds)") from None
    if number <= 0:
        raise ValueError("a positive number (seconds)")
    return number


def _non_negative_int(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("a non-negative integer")
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError("a non-negative integer") from None
    if number < 0 or (isinstance(value, float) and value != number):
        raise ValueError("a non-negative integer")
    return number


def _positive_int(value: Any) -> int:
    number = _non_negative_int(value)
    if number == 0:
        raise ValueError("a positive integer")
    return number


def _non_negative_float(value: Any) -> float:
    if value == 0 or value == "0":
        return 0.0
    return _positive_float(value)


def _one_of(*allowed: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in allowed:
            raise ValueError("one of " + ", ".join(allowed))
        return str(value)

    return check


def _argv(value: Any) -> tuple[str, ...]:
    """A command: a list of strings, or one string split like a shell does."""
    if isinstance(value, str):
        try:
            value = shlex.split(value)
        except ValueError:
            raise ValueError("a command (a list of strings, or a shell-like string)") from None
    if (
        not isinstance(value, list | tuple)
        or not value
        or not all(isinstance(a, str) and a for a in value)
    ):
        raise ValueError("a command (a list of strings, or a shell-like string)")
    return tuple(value)


def _base_url(value: Any) -> str:
    """An http(s) URL httpx can connect to; its secrets are masked from now on."""
    url = _non_empty_str(value)
    remember_location(url)
    problem = base_url_problem(url.strip())
    if problem is not None:
        raise ValueError(f"an http:// or https:// URL ({problem})")
    return url


def _index_url(value: Any) -> str:
    """A postgresql:// URL, `sqlite:PATH` or empty; its secrets are masked from now on."""
    expected = "a postgresql:// URL, or empty for the embedded index"
    if not isinstance(value, str):
        raise ValueError(expected)
    remember_location(value)
    if not value or value.startswith("sqlite:"):
        return value
    problem = index_url_problem(value.strip())
    if problem is not None:
        raise ValueError(f"{expected} ({problem})")
    return value


_TRUE = ("true", "1", "on", "yes")
_FALSE = ("false", "0", "off", "no")


def _flag(value: Any) -> bool:
    """true / false (an environment variable: 1, 0, on, off, yes, no too)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
        return value.strip().lower() in _TRUE
    raise ValueError("true or false")


def _command_globs(value: Any) -> tuple[str, ...]:
    """Globs over a whole command line (`["pytest*", "npm test"]`); `*` matches spaces too."""
    if not isinstance(value, list | tuple) or not all(
        isinstance(glob, str) and glob.strip() for glob in value
    ):
        raise ValueError("a list of command-line globs")
    return tuple(glob.strip() for glob in value)


def _globs(value: Any) -> tuple[str, ...]:
    """A list of gitignore-style globs; `true` means every file, `false` none. A string (the
    environment's form) is a comma-separated list, or `true` / `false`."""
    if isinstance(value, str):
        word = value.strip().lower()
        globs = [glob.strip() for glob in value.split(",") if glob.strip()]
        value = True if word == "true" else False if word == "false" else globs
    if value is True:
        return ("*",)
    if value is False:
        return ()
    if not isinstance(value, list | tuple) or not all(
        isinstance(glob, str) and glob.strip() for glob in value
    ):
        raise ValueError("a list of glob patterns (or true / false)")
    return tuple(value)


_CHECKS: dict[str, Callable[[Any], Any]] = {
    "provider": _non_empty_str,
    "baseUrl": _base_url,
    "model": _non_empty_str,
    "apiKeyEnv": _non_empty_str,
    "requestTimeout": _positive_float,
    "connectTimeout": _positive_float,
    "maxRetries": _non_negative_int,
    "retryBaseDelay": _non_negative_float,
    "maxTurns": _positive_int,
    "maxTokens": _positive_int,
    "modelPath": _non_empty_str,
    "contextSize": _positive_int,
    "cliCommand": _argv,
    "cliTimeout": _positive_float,
    "toolProtocol": _one_of("json", "xml", "native"),
    "indexUrl": _index_url,
    "indexSummaries": _flag,
    "index": _flag,
    "allowSecretFiles": _globs,
    "review": _one_of("off", "on"),
    "commands": _one_of("ask", "allow", "off"),
    "commandAllowList": _command_globs,
    "commandTimeout": _positive_float,
    "mcpServers": parse_servers,
    "mcpTimeout": _positive_float,
}
assert set(_CHECKS) == {f.name for f in fields(Config)}


@dataclass(frozen=True)
class ConfigProblem:
    key: str
    expected: str
    got: Any
    source: str

    @property
    def blocking(self) -> bool:
        """A bad URL is not replaced by another: what uses it fails, naming the setting."""
        return self.key in URL_KEYS

    def message(self) -> str:
        then = "it is not used" if self.blocking else f"keeping {self.key}'s previous value"
        return redact(
            f"agent-ls setting agentLs.{self.key} (from {self.source}): expected {self.expected}, "
            f"got {self.got!r}; {then}."
        )


URL_KEYS = frozenset({"baseUrl", "indexUrl"})


def blocking_problem(
    problems: list[ConfigProblem], keys: frozenset[str] = URL_KEYS
) -> ConfigProblem | None:
    """The first problem that stops what uses one of `keys` (a malformed URL), or None."""
    return next((p for p in problems if p.blocking and p.key in keys), None)


def merge(
    base: Config, values: Mapping[str, Any] | None, source: str
) -> tuple[Config, list[ConfigProblem]]:
    """Overlay `values` on `base`; unknown keys are ignored, bad values reported and skipped."""
    if not values:
        return base, []
    if not isinstance(values, Mapping):
        return base, [ConfigProblem("(section)", "an object of settings", values, source)]
    changes: dict[str, Any] = {}
    problems: list[ConfigProblem] = []
    for key, check in _CHECKS.items():
        if key not in values or values[key] is None:
            continue
        try:
            changes[key] = check(values[key])
        except ValueError as exc:
            problems.append(ConfigProblem(key, str(exc), values[key], source))
    return replace(base, **changes), problems


def from_environment(
    environ: Mapping[str, str] | None = None,
) -> tuple[Config, list[ConfigProblem]]:
    """Defaults overlaid with the AGENT_LS_* environment variables."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {key: env[var] for key, var in ENV_VARS.items() if env.get(var)}
    problems: list[ConfigProblem] = []
    if env.get(CONFIG_ENV):
        try:
            values["mcpServers"] = load_file(env[CONFIG_ENV])
        except ValueError as error:
            problems.append(ConfigProblem("mcpServers", str(error), env[CONFIG_ENV], CONFIG_ENV))
    config, more = merge(Config(), values, "environment")
    return config, problems + more
