"""`agent-ls chat`'s consent to the model's shell commands: a y/N question on the terminal,
or Deny with a one-line hint when stdin is not a terminal (`--allow-commands` runs them
without asking). An MCP tool call is asked the same way, and the trust of a project's
`.mcp.json` (t/N; without a terminal not trusted, the user told how to trust it)."""

from __future__ import annotations

import asyncio
import sys

from actions.tools.consent import ToolCallRequest
from actions.tools.run_command import CommandRequest, Consent
from server.commands.progress import Progress
from server.mcp.project import TrustRequest

ANSWERS = {"y": Consent.RUN, "yes": Consent.RUN, "a": Consent.ALWAYS, "always": Consent.ALWAYS}


class TerminalGate:
    """Asks on stderr, reads stdin; anything but y / a (or no terminal) is Deny."""

    def __init__(self, progress: Progress | None = None) -> None:
        self.progress = progress

    async def ask(self, request: CommandRequest) -> Consent:
        if self.progress is not None:
            self.progress.clear()
        if not sys.stdin.isatty():
            print(
                f"agent-ls: denied the command `{request.command}`: stdin is not a terminal "
                "(--allow-commands runs the model's commands without asking)",
                file=sys.stderr,
                flush=True,
            )
            return Consent.DENY
        question = (
            f"agent-ls: the model wants to run, in {request.shown_cwd}:\n  {request.command}\n"
            "Run it? [y]es / [a]lways this line / [N]o: "
        )
        print(question, end="", file=sys.stderr, flush=True)
        line = await asyncio.to_thread(sys.stdin.readline)
        return ANSWERS.get(line.strip().lower(), Consent.DENY)

    async def ask_tool(self, request: ToolCallRequest) -> Consent:
        if self.progress is not None:
            self.progress.clear()
        if not sys.stdin.isatty():
            print(
                f"agent-ls: denied the MCP tool {request.tool} of {request.source}: stdin is not "
                'a terminal (`"allow"` in its mcpServers entry runs its tools without asking)',
                file=sys.stderr,
                flush=True,
            )
            return Consent.DENY
        question = (
            f"agent-ls: the model wants to call the tool {request.tool} of the MCP server "
            f"{request.source} with:\n  {request.details}\n"
            "Call it? [y]es / [a]lways this tool / [N]o: "
        )
        print(question, end="", file=sys.stderr, flush=True)
        line = await asyncio.to_thread(sys.stdin.readline)
        return ANSWERS.get(line.strip().lower(), Consent.DENY)

    async def ask_trust(self, request: TrustRequest) -> bool:
        if self.progress is not None:
            self.progress.clear()
        if not sys.stdin.isatty():
            print(
                f"agent-ls: the MCP servers of {request.path} are not started: stdin is not a "
                "terminal to ask whether you trust them. Run agent-ls chat in a terminal once "
                "and answer t (kept for this content of the file), or name the file yourself "
                f"with --mcp-config {request.path}",
                file=sys.stderr,
                flush=True,
            )
            return False
        question = (
            f"agent-ls: {request.path} starts MCP servers that run:\n{request.summary()}\n"
            "Trust the MCP servers of .mcp.json? [t]rust / [N]o: "
        )
        print(question, end="", file=sys.stderr, flush=True)
        line = await asyncio.to_thread(sys.stdin.readline)
        return line.strip().lower() in ("t", "trust")
