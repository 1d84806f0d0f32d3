"""An MCP server for the list-changed test, written with the official SDK (it speaks the
2026-07-28 revision, where a tool list change reaches only a `subscriptions/listen` stream):
`unlock` adds the tool `secret` and says the list changed. Run: python -m this_module."""

from __future__ import annotations

from mcp.server.mcpserver import Context, MCPServer

app = MCPServer("unlocking")


def secret() -> str:
    """The secret that `unlock` makes available."""
    return "the secret is 31337"


@app.tool()
async def unlock(ctx: Context) -> str:
    """Add the tool `secret`."""
    app.add_tool(secret)
    await ctx.notify_tools_changed()
    return "unlocked: the tool secret is there now"


if __name__ == "__main__":
    app.run()
