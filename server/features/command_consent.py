"""The editor's consent to the model's shell commands: `window/showMessageRequest` (Warning)
naming the command line and the folder, with the actions **Run**, **Always allow**, **Deny**.
No answer (null), a dismissed request or an error is Deny. An MCP tool call is asked the same
way, the prompt naming the server, the tool and its arguments; a project's `.mcp.json` is
trusted with **Trust** / **Deny**."""

from __future__ import annotations

import logging

from lsprotocol import types

from actions.tools.consent import ToolCallRequest
from actions.tools.run_command import CommandRequest, Consent
from server.lsp import AgentLanguageServer
from server.mcp.project import TrustRequest
from server.protocol import CONSENT_ALWAYS, CONSENT_DENY, CONSENT_PREFIX, CONSENT_RUN

log = logging.getLogger(__name__)

RUN, ALWAYS, DENY = CONSENT_RUN, CONSENT_ALWAYS, CONSENT_DENY
CHOICES = {RUN: Consent.RUN, ALWAYS: Consent.ALWAYS, DENY: Consent.DENY}


def consent_message(request: CommandRequest) -> str:
    """What the prompt says: the exact line and where it runs."""
    where = f"{request.shown_cwd} ({request.cwd})"
    return f"{CONSENT_PREFIX}{where}:\n\n{request.command}"


def tool_consent_message(request: ToolCallRequest) -> str:
    """What the prompt says of an MCP tool call: the server, the tool, the arguments."""
    return (
        f"agent-ls: the model wants to call the tool {request.tool} of the MCP server "
        f"{request.source} with:\n\n{request.details}"
    )


TRUST, DENY_TRUST = "Trust", "Deny"


def trust_message(request: TrustRequest) -> str:
    """What the trust prompt says: the file and what its servers run."""
    return (
        f"agent-ls: {request.path} starts MCP servers that run:\n\n{request.summary()}\n\n"
        "Trust the MCP servers of .mcp.json?"
    )


class EditorGate:
    """Asks the editor; one prompt per command line."""

    def __init__(self, ls: AgentLanguageServer) -> None:
        self.ls = ls

    async def ask(self, request: CommandRequest) -> Consent:
        return await self._ask(consent_message(request))

    async def ask_tool(self, request: ToolCallRequest) -> Consent:
        return await self._ask(tool_consent_message(request))

    async def ask_trust(self, request: TrustRequest) -> bool:
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=trust_message(request),
            actions=[types.MessageActionItem(title=title) for title in (TRUST, DENY_TRUST)],
        )
        try:
            answer = await self.ls.window_show_message_request_async(params)
        except Exception as error:  # an editor that cannot show it: not trusted
            log.warning("the trust prompt failed (%s): not trusted", error)
            return False
        return answer is not None and answer.title == TRUST

    async def _ask(self, message: str) -> Consent:
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=message,
            actions=[types.MessageActionItem(title=title) for title in CHOICES],
        )
        try:
            answer = await self.ls.window_show_message_request_async(params)
        except Exception as error:  # an editor that cannot show it: nothing runs
            log.warning("the consent prompt failed (%s): denied", error)
            return Consent.DENY
        if answer is None:
            return Consent.DENY
        return CHOICES.get(answer.title, Consent.DENY)
