"""The editor's consent to the model's shell commands: `window/showMessageRequest` (Warning)
naming the command line and the folder, with the actions **Run**, **Always allow**, **Deny**.
No answer (null), a dismissed request or an error is Deny. An MCP tool call is asked the same
way, the prompt naming the server, the tool and its arguments; a project's `.mcp.json` is
trusted with **Trust** / **Deny**. Each request also carries `agentLs`, what is asked, typed
(`ConsentPrompt` in server/protocol.py), for the clients that show it as their own card."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from lsprotocol import types

from actions.tools.consent import ToolCallRequest
from actions.tools.run_command import CommandRequest, Consent
from server.lsp import AgentLanguageServer
from server.mcp.project import TrustRequest
from server.protocol import (
    CONSENT_ALWAYS,
    CONSENT_DENY,
    CONSENT_PREFIX,
    CONSENT_RUN,
    CONSENT_TRUST,
    CommandConsent,
    ConsentPrompt,
    ConsentRequestParams,
    MessageAction,
    ProjectServer,
    ToolConsent,
    TrustConsent,
)

log = logging.getLogger(__name__)

RUN, ALWAYS, DENY = CONSENT_RUN, CONSENT_ALWAYS, CONSENT_DENY
CHOICES = {RUN: Consent.RUN, ALWAYS: Consent.ALWAYS, DENY: Consent.DENY}
TRUST, DENY_TRUST = CONSENT_TRUST, CONSENT_DENY


def shown_folder(request: CommandRequest) -> str:
    """Where the line runs, as the prompt shows it: `name (path)`."""
    return f"{request.shown_cwd} ({request.cwd})"


def consent_message(request: CommandRequest) -> str:
    """What the prompt says: the exact line and where it runs."""
    return f"{CONSENT_PREFIX}{shown_folder(request)}:\n\n{request.command}"


def tool_consent_message(request: ToolCallRequest) -> str:
    """What the prompt says of an MCP tool call: the server, the tool, the arguments."""
    return (
        f"agent-ls: the model wants to call the tool {request.tool} of the MCP server "
        f"{request.source} with:\n\n{request.details}"
    )


def trust_message(request: TrustRequest) -> str:
    """What the trust prompt says: the file and what its servers run."""
    return (
        f"agent-ls: {request.path} starts MCP servers that run:\n\n{request.summary()}\n\n"
        "Trust the MCP servers of .mcp.json?"
    )


def command_params(request: CommandRequest) -> ConsentRequestParams:
    prompt = CommandConsent(command=request.command, folder=shown_folder(request))
    return _params(consent_message(request), CHOICES, prompt)


def tool_params(request: ToolCallRequest) -> ConsentRequestParams:
    prompt = ToolConsent(server=request.source, tool=request.tool, arguments=request.details)
    return _params(tool_consent_message(request), CHOICES, prompt)


def trust_params(request: TrustRequest) -> ConsentRequestParams:
    servers = [ProjectServer(name=name, runs=runs) for name, runs in request.runs()]
    prompt = TrustConsent(path=str(request.path), servers=servers)
    return _params(trust_message(request), (TRUST, DENY_TRUST), prompt)


def _params(message: str, titles: Iterable[str], prompt: ConsentPrompt) -> ConsentRequestParams:
    """A Warning message request whose `agentLs` says what is asked (server/protocol.py)."""
    actions = [MessageAction(title=title) for title in titles]
    warning = types.MessageType.Warning.value
    return ConsentRequestParams(type=warning, message=message, actions=actions, agent_ls=prompt)


class EditorGate:
    """Asks the editor; one prompt per command line."""

    def __init__(self, ls: AgentLanguageServer) -> None:
        self.ls = ls

    async def ask(self, request: CommandRequest) -> Consent:
        return await self._ask(command_params(request))

    async def ask_tool(self, request: ToolCallRequest) -> Consent:
        return await self._ask(tool_params(request))

    async def ask_trust(self, request: TrustRequest) -> bool:
        try:
            answer = await self._request(trust_params(request))
        except Exception as error:  # an editor that cannot show it: not trusted
            log.warning("the trust prompt failed (%s): not trusted", error)
            return False
        return answer is not None and answer.title == TRUST

    async def _ask(self, params: ConsentRequestParams) -> Consent:
        try:
            answer = await self._request(params)
        except Exception as error:  # an editor that cannot show it: nothing runs
            log.warning("the consent prompt failed (%s): denied", error)
            return Consent.DENY
        if answer is None:
            return Consent.DENY
        return CHOICES.get(answer.title, Consent.DENY)

    async def _request(self, params: ConsentRequestParams) -> types.MessageActionItem | None:
        """window/showMessageRequest with these params (the converter keeps `agentLs`)."""
        method = types.WINDOW_SHOW_MESSAGE_REQUEST
        answer: types.MessageActionItem | None = await self.ls.protocol.send_request_async(
            method, params
        )
        return answer
