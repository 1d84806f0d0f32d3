"""Consent to a tool call other than a shell line (an MCP server's tool): what the front end's
prompt shows and the gate that asks. The answers are the command prompt's (``Consent``: Run,
Always allow, Deny); a front end that cannot ask denies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from actions.tools.run_command import Consent


@dataclass(frozen=True)
class ToolCallRequest:
    """A call about to be made: ``kind`` (``mcp``), the ``source`` it goes to (the server),
    the ``tool`` as the server names it, and its arguments as JSON text (``details``)."""

    kind: str
    source: str
    tool: str
    details: str

    @property
    def title(self) -> str:
        return f"{self.source}: {self.tool}"


class ToolGate(Protocol):
    """The front end's consent prompt for a tool call. No answer or a dismissed prompt is
    ``DENY``."""

    async def ask_tool(self, request: ToolCallRequest) -> Consent: ...


class DenyTools:
    """The gate of a front end that cannot ask."""

    async def ask_tool(self, request: ToolCallRequest) -> Consent:
        return Consent.DENY
