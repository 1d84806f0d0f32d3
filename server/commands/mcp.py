"""`agent-ls mcp list [--json]`: the MCP servers of the configuration (the environment's
`AGENT_LS_MCP_CONFIG`, or `--mcp-config FILE`), each started, its state and tools listed,
then stopped. Exit status 0 when every server is ready, 1 otherwise, 2 for a usage error."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from server.commands.chat import add_mcp_config, cli_config
from server.commands.errors import FAILED, USAGE, complain
from server.mcp.manager import McpManager
from server.mcp_config import McpServerSpec
from server.protocol import McpServerStatus, to_wire
from server.wording import setting_message


def register(sub: Any) -> None:
    parser = sub.add_parser("mcp", help="the MCP servers of the configuration")
    actions = parser.add_subparsers(dest="mcp_action", required=True)
    listing = actions.add_parser("list", help="start each MCP server and list its tools")
    listing.add_argument("--json", action="store_true", help="print the servers as JSON")
    add_mcp_config(listing)
    for name in ("provider", "baseUrl", "model"):
        listing.set_defaults(**{name: None})
    listing.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    config, _, problems = cli_config(args)
    for problem in problems:
        complain(setting_message(problem))
    if any(problem.key == "mcpServers" for problem in problems):
        return USAGE
    found = asyncio.run(started(config.mcpServers))
    if args.json:
        print(json.dumps([to_wire(server) for server in found], ensure_ascii=False))
    elif not found:
        print("no MCP servers are configured (mcpServers, AGENT_LS_MCP_CONFIG, --mcp-config)")
    else:
        print("\n".join(render(server) for server in found))
    return 0 if all(server.state == "ready" for server in found) else FAILED


async def started(specs: tuple[McpServerSpec, ...]) -> list[McpServerStatus]:
    manager = McpManager()
    try:
        manager.sync(specs)
        await manager.wait_started()
        return manager.report()
    finally:
        await manager.close()


def render(server: McpServerStatus) -> str:
    head = f"{server.name} ({server.transport}): {server.state}"
    if server.error:
        return f"{head}: {server.error}"
    return "\n".join([head, *(f"  {tool}" for tool in server.tools)])
