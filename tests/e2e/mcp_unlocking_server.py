"""An MCP server for what server-everything cannot show, written with the official SDK (it
speaks the 2026-07-28 revision, where a tool list change reaches only a
`subscriptions/listen` stream): `unlock` adds the tool `secret` and says the list changed;
`wait` waits until the call is cancelled and then writes the file it was given."""

from __future__ import annotations

from pathlib import Path

import anyio
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


@app.tool()
async def wait(marker: str) -> str:
    """Wait (up to 10 minutes); when the call is cancelled, write `marker`."""
    try:
        await anyio.sleep(600)
    except anyio.get_cancelled_exc_class():
        Path(marker).write_text("cancelled")
        raise
    return "waited"


if __name__ == "__main__":
    app.run()
