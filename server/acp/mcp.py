"""MCP over ACP: the `mcpServers` a client passes in `session/new` / `session/load` (stdio;
Streamable HTTP, advertised by `mcpCapabilities.http`) started for that session and stopped
with it (the connection's end, another load of the session, the unstable `session/close`);
consent to their tool calls, and to those of the configured servers, through
`session/request_permission` on the tool call already announced (Run / Always allow / Deny)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from acp.helpers import text_block, tool_content
from acp.schema import PermissionOption, ToolCallUpdate

from actions.tools.consent import ToolCallRequest
from actions.tools.run_command import Consent
from server.acp.commands import ask_permission
from server.acp.updates import UpdateSink
from server.mcp.manager import McpManager
from server.mcp.project import TrustRequest
from server.mcp_config import McpServerSpec
from server.redact import remember, remember_location

_UNNAMEABLE = re.compile(r"[^A-Za-z0-9_.-]")


def session_specs(servers: Sequence[Any] | None) -> tuple[McpServerSpec, ...]:
    """The client's servers as specs (an SSE server, or an ACP-transport one, is skipped:
    not advertised). Env and header values are secrets from here on."""
    specs: list[McpServerSpec] = []
    for server in servers or ():
        name = _UNNAMEABLE.sub("_", str(getattr(server, "name", "") or "server"))[:40]
        if getattr(server, "command", None):
            env = tuple((v.name, v.value) for v in server.env or ())
            for _, value in env:
                remember(value)
            args = tuple(server.args or ())
            specs.append(
                McpServerSpec(name, command=server.command, args=args, env=env, source="acp")
            )
        elif getattr(server, "url", None) and getattr(server, "type", "http") == "http":
            headers = tuple((h.name, h.value) for h in server.headers or ())
            for _, value in headers:
                remember(value)
            remember_location(server.url)
            specs.append(McpServerSpec(name, url=server.url, headers=headers, source="acp"))
    return tuple(specs)


def start_session_servers(servers: Sequence[Any] | None) -> McpManager | None:
    """A manager running the session's servers (None: the client passed none)."""
    specs = session_specs(servers)
    if not specs:
        return None
    manager = McpManager()
    manager.sync(specs)
    return manager


TRUST_OPTIONS = [
    PermissionOption(option_id="trust", name="Trust", kind="allow_always"),
    PermissionOption(option_id="deny", name="Deny", kind="reject_once"),
]


class AcpToolGate:
    """Asks the client about the MCP tool call in progress."""

    def __init__(self, client: Any, session_id: str, sink: UpdateSink) -> None:
        self.client = client
        self.session_id = session_id
        self.sink = sink

    async def ask_tool(self, request: ToolCallRequest) -> Consent:
        await self.sink.drain()  # the tool call is announced before the request names it
        running = next((cid for _, cid in reversed(self.sink.pending_tools)), None)
        call = ToolCallUpdate(
            tool_call_id=running or self.sink.next_id("mcp"),
            title=f"{request.title} (MCP)"[:200],
            kind="other",
            status="pending",
            content=[tool_content(text_block(f"{request.title}\n{request.details}"))],
        )
        return await ask_permission(self.client, self.session_id, call)

    async def ask_trust(self, request: TrustRequest) -> bool:
        call = ToolCallUpdate(
            tool_call_id=self.sink.next_id("mcp-trust"),
            title="Trust the MCP servers of .mcp.json?",
            kind="execute",
            status="pending",
            content=[tool_content(text_block(f"{request.path}\n{request.summary()}"))],
        )
        response = await self.client.request_permission(
            session_id=self.session_id, tool_call=call, options=TRUST_OPTIONS
        )
        selected = getattr(response.outcome, "outcome", None) == "selected"
        return selected and getattr(response.outcome, "option_id", "") == "trust"
