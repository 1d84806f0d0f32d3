"""The `mcpServers` setting: the MCP servers a user brings, in the shape Claude Code, Zed and
VS Code use.

```json
{"git": {"command": "uvx", "args": ["mcp-server-git"], "env": {"X": "${HOME}"}, "cwd": "/src"},
 "docs": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
 "tools": {"command": "my-server", "allow": ["search", "read"]}}
```

A stdio server has `command` (`args`, `env`, `cwd` optional), a Streamable HTTP server `url`
(`headers` optional); `allow` lists the tools that run without asking (`"*"`: all of them).
`${VAR}` in an env or header value is the environment's variable, expanded when the server
starts. Every env and header value is a secret from the moment it is read (masked in all
output: server/redact.py). Parsed into frozen `McpServerSpec`s (hashable: part of `Config`);
a bad entry is a `ValueError` naming it and what was expected.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.redact import remember, remember_location

CONFIG_ENV = "AGENT_LS_MCP_CONFIG"  # a JSON file {"mcpServers": {...}}
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")
_STDIO_KEYS = frozenset({"command", "args", "env", "cwd", "allow", "type"})
_HTTP_KEYS = frozenset({"url", "headers", "allow", "type"})

START_TIMEOUT = 30.0  # seconds an MCP server may take to start before it counts as failed


@dataclass(frozen=True)
class McpServerSpec:
    """One server entry. `allow`: tool names that run without asking, ("*",) for all."""

    name: str
    command: str = ""  # stdio
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str = ""
    url: str = ""  # Streamable HTTP
    headers: tuple[tuple[str, str], ...] = ()
    allow: tuple[str, ...] = ()
    source: str = "settings"  # settings | acp (a client's session) | .mcp.json

    @property
    def transport(self) -> str:
        return "http" if self.url else "stdio"

    def allows(self, tool: str) -> bool:
        return "*" in self.allow or tool in self.allow

    def expanded_env(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        return {name: expand(value, environ) for name, value in self.env}

    def expanded_headers(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        return {name: expand(value, environ) for name, value in self.headers}


def expand(value: str, environ: Mapping[str, str] | None = None) -> str:
    """`${VAR}` replaced by the variable's value ("" when unset); the result is a secret."""
    env = os.environ if environ is None else environ
    result = _VAR.sub(lambda match: env.get(match.group(1), ""), value)
    remember(result)
    return result


def parse_servers(value: Any, source: str = "settings") -> tuple[McpServerSpec, ...]:
    """The `mcpServers` object as specs, in its order; a ValueError names the bad entry."""
    if not isinstance(value, Mapping):
        raise ValueError('an object {"<name>": {"command": ...} or {"url": ...}}')
    return tuple(parse_entry(name, entry, source) for name, entry in value.items())


def parse_entry(name: Any, entry: Any, source: str = "settings") -> McpServerSpec:
    """One entry; a ValueError says which server and what is wrong with it."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"server names of letters, digits, '_', '-', '.' (got {name!r})")
    if not isinstance(entry, Mapping):
        raise ValueError(f'server "{name}": an object with "command" or "url"')
    _remember_secrets(entry)  # before any error message could show them
    has_command, has_url = "command" in entry, "url" in entry
    if has_command == has_url:
        raise ValueError(f'server "{name}": exactly one of "command" (stdio) or "url" (HTTP)')
    allowed_keys = _STDIO_KEYS if has_command else _HTTP_KEYS
    unknown = sorted(str(key) for key in entry if key not in allowed_keys)
    if unknown:
        raise ValueError(f'server "{name}": unknown key(s) {", ".join(unknown)}')
    allow = _allow(name, entry.get("allow", ()))
    if has_url:
        url = _string(name, "url", entry["url"])
        if not url.startswith(("http://", "https://")):
            raise ValueError(f'server "{name}": "url" must be an http:// or https:// URL')
        remember_location(url)
        headers = _secret_pairs(name, "headers", entry.get("headers", {}))
        return McpServerSpec(name, url=url, headers=headers, allow=allow, source=source)
    args = entry.get("args", [])
    if not isinstance(args, list | tuple) or not all(isinstance(a, str) for a in args):
        raise ValueError(f'server "{name}": "args" must be a list of strings')
    cwd = entry.get("cwd", "")
    if not isinstance(cwd, str):
        raise ValueError(f'server "{name}": "cwd" must be a string (a folder)')
    return McpServerSpec(
        name,
        command=_string(name, "command", entry["command"]),
        args=tuple(args),
        env=_secret_pairs(name, "env", entry.get("env", {})),
        cwd=cwd,
        allow=allow,
        source=source,
    )


def load_file(path: str | Path) -> Any:
    """The `mcpServers` object of a JSON file `{"mcpServers": {...}}` (unparsed)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(f"a readable JSON file ({path}: {error.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"a JSON file ({path}: {error})") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("mcpServers"), Mapping):
        raise ValueError(f'a JSON file {{"mcpServers": {{...}}}} ({path})')
    return data["mcpServers"]


def _string(name: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f'server "{name}": "{key}" must be a non-empty string')
    return value.strip()


def _secret_pairs(name: str, key: str, value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ValueError(f'server "{name}": "{key}" must be an object of strings')
    for item in value.values():
        remember(item)
    return tuple(sorted(value.items()))


def _remember_secrets(entry: Mapping[str, Any]) -> None:
    for key in ("env", "headers"):
        values = entry.get(key)
        if isinstance(values, Mapping):
            for value in values.values():
                remember(value if isinstance(value, str) else None)
    if isinstance(entry.get("url"), str):
        remember_location(entry["url"])


def _allow(name: str, value: Any) -> tuple[str, ...]:
    if value == "*":
        return ("*",)
    if not isinstance(value, list | tuple) or not all(isinstance(t, str) for t in value):
        raise ValueError(f'server "{name}": "allow" must be a list of tool names or "*"')
    return tuple(value)
