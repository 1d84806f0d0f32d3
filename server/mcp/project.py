"""A project's `.mcp.json` (at a workspace folder's root, `{"mcpServers": {...}}`): its
servers run commands from a repository that may not be the user's, so they start only after
the user trusted that file's exact content for that folder ("Trust the MCP servers of
.mcp.json?" **Trust** / **Deny**, asked by the front end's `TrustGate`: LSP
`window/showMessageRequest`, ACP `session/request_permission`, the CLI's terminal). A changed
file asks again. The trusted servers run in the folder's manager (server/mcp/folder.py).

Trust is kept outside every workspace (a repository cannot ship its own trust):
`$XDG_STATE_HOME/agent-ls/mcp-trust.json` (default `~/.local/state/...`), one content digest
per workspace. Deny holds for the server's life (the same content is not asked again).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from server.mcp_config import McpServerSpec, load_file, parse_servers

log = logging.getLogger(__name__)

PROJECT_FILE = ".mcp.json"


@dataclass(frozen=True)
class TrustRequest:
    """What the trust prompt shows: the file and what its servers would run."""

    path: Path
    servers: tuple[McpServerSpec, ...]

    def runs(self) -> list[tuple[str, str]]:
        """Each server's name and what it runs (its command line, or its URL)."""
        return [(s.name, _what_runs(s)) for s in self.servers]

    def summary(self) -> str:
        return "\n".join(f"{name}: {runs}" for name, runs in self.runs())


def _what_runs(spec: McpServerSpec) -> str:
    return spec.url or " ".join([spec.command, *spec.args])


class TrustGate(Protocol):
    """The front end's trust prompt: True only for an explicit Trust."""

    async def ask_trust(self, request: TrustRequest) -> bool: ...


def trust_file() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "agent-ls" / "mcp-trust.json"


class ProjectTrust:
    """Which workspace folders' `.mcp.json` the user trusts (and which content)."""

    def __init__(self, store: Path | None = None) -> None:
        self.store = store
        self._denied: set[tuple[Path, str]] = set()
        self._trusted_now: set[tuple[Path, str]] = set()  # also when the store is unwritable

    async def trusted_specs(self, root: Path, gate: TrustGate | None) -> tuple[McpServerSpec, ...]:
        """The servers of `root`'s `.mcp.json` once trusted (none: no file, a bad file, not
        trusted). Asks `gate` once per content."""
        path = root / PROJECT_FILE
        try:
            content = path.read_bytes()
            specs = parse_servers(load_file(path), source=PROJECT_FILE)
        except FileNotFoundError:
            return ()
        except (OSError, ValueError) as error:
            log.warning("%s is not used: %s", path, error)
            return ()
        digest = hashlib.sha256(content).hexdigest()
        if not await self._trusted(root, digest, path, specs, gate):
            return ()
        return specs

    async def _trusted(
        self,
        root: Path,
        digest: str,
        path: Path,
        specs: tuple[McpServerSpec, ...],
        gate: TrustGate | None,
    ) -> bool:
        if (root, digest) in self._trusted_now or self._stored().get(str(root)) == digest:
            return True
        if not specs or gate is None or (root, digest) in self._denied:
            return False
        if not await gate.ask_trust(TrustRequest(path, specs)):
            self._denied.add((root, digest))
            return False
        self._trusted_now.add((root, digest))
        self._remember(root, digest)
        return True

    def _path(self) -> Path:
        return self.store or trust_file()

    def _stored(self) -> dict[str, str]:
        try:
            data = json.loads(self._path().read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def _remember(self, root: Path, digest: str) -> None:
        stored = self._stored() | {str(root): digest}
        path = self._path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(stored, indent=1, sort_keys=True), encoding="utf-8")
        except OSError as error:  # trusted for this run only
            log.warning("the MCP trust of %s could not be stored in %s: %s", root, path, error)
