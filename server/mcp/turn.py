"""The MCP tools of one turn: each ready server's tools, named and bound to the front end's
consent prompt and the session's "Always allow" answers; a server that failed after it
listed its tools keeps them offered (a call starts it again, as its backoff allows). Of
servers of the same name, the first manager's is offered (turn_assembly.mcp_servers orders
them)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from actions.tools.consent import DenyTools, ToolGate
from server.config import Config
from server.mcp.manager import McpManager
from server.turns.turn import Agent


async def with_mcp_tools(
    agent: Agent,
    config: Config,
    managers: Sequence[McpManager],
    gate: ToolGate | None,
    allowed: set[str],
) -> Agent:
    """The agent with the tools of the servers of `managers` (not to the embedded model, too
    small to be trusted with them). Waits at most for the servers still starting."""
    if agent.provider.name == "local" or not any(m.connections for m in managers):
        return agent
    # the MCP SDK loads with the first server
    from server.mcp.connection import McpConnection
    from server.mcp.tools import McpTool, tool_name

    await asyncio.gather(*(manager.wait_started() for manager in managers))
    registry = agent.registry
    taken = set(registry.names())
    trust_all = config.commands == "allow"
    first: dict[str, McpConnection] = {}
    for manager in managers:
        for server, connection in manager.connections.items():
            first.setdefault(server, connection)
    for connection in first.values():
        if connection.state not in ("ready", "failed"):
            continue  # a failed server that had tools: a call starts it again (its backoff)
        for tool in connection.tools:
            name = tool_name(connection.spec.name, tool.name, taken)
            implementation = McpTool(
                name, connection, tool, gate or DenyTools(), allowed, trust_all, config.mcpTimeout
            )
            registry = registry.extended(implementation.manifest(), implementation)
    return replace(agent, registry=registry)
