"""The MCP tools of one turn: each ready server's tools, named and bound to the front end's
consent prompt and the session's "Always allow" answers."""

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
    from server.mcp.tools import McpTool, tool_name  # the MCP SDK loads with the first server

    await asyncio.gather(*(manager.wait_started() for manager in managers))
    registry = agent.registry
    taken = set(registry.names())
    trust_all = config.commands == "allow"
    connections = [c for manager in managers for c in manager.ready()]
    for connection in connections:
        for tool in connection.tools:
            name = tool_name(connection.spec.name, tool.name, taken)
            implementation = McpTool(
                name, connection, tool, gate or DenyTools(), allowed, trust_all, config.mcpTimeout
            )
            registry = registry.extended(implementation.manifest(), implementation)
    return replace(agent, registry=registry)
