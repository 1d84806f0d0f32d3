"""A user's MCP server that crashes (the tests' crasher, not a component agent-ls ships):
`work` answers the first ANSWERED calls, counted in COUNT_FILE across restarts, and every
later call ends the process (exit 3) before it answers, after a line on stderr.
`--leak`: it writes its environment's TOKEN to stderr as it starts (as a careless server
does); `--fail`: it then exits at once (a server that cannot start).

    python mcp_crasher.py COUNT_FILE ANSWERED [--leak] [--fail]
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

app = MCPServer("crasher")
COUNT = Path(sys.argv[1])
ANSWERED = int(sys.argv[2])


@app.tool()
def work() -> str:
    """Do some work."""
    done = int(COUNT.read_text()) if COUNT.exists() else 0
    COUNT.write_text(str(done + 1))
    if done >= ANSWERED:
        print(f"crasher: call {done + 1}: crashing", file=sys.stderr, flush=True)
        os._exit(3)
    return f"work done ({done + 1})"


if __name__ == "__main__":
    if "--leak" in sys.argv:
        print(f"crasher starting with token {os.environ.get('TOKEN')}", file=sys.stderr, flush=True)
    if "--fail" in sys.argv:
        print("crasher: cannot start", file=sys.stderr, flush=True)
        sys.exit(1)
    app.run()
