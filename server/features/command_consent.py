"""The editor's consent to the model's shell commands: `window/showMessageRequest` (Warning)
naming the command line and the folder, with the actions **Run**, **Always allow**, **Deny**.
No answer (null), a dismissed request or an error is Deny."""

from __future__ import annotations

import logging

from lsprotocol import types

from actions.tools.run_command import CommandRequest, Consent
from server.lsp import AgentLanguageServer

log = logging.getLogger(__name__)

RUN, ALWAYS, DENY = "Run", "Always allow", "Deny"
CHOICES = {RUN: Consent.RUN, ALWAYS: Consent.ALWAYS, DENY: Consent.DENY}


def consent_message(request: CommandRequest) -> str:
    """What the prompt says: the exact line and where it runs."""
    where = f"{request.shown_cwd} ({request.cwd})"
    return f"agent-ls: the model wants to run a command in {where}:\n\n{request.command}"


class EditorGate:
    """Asks the editor; one prompt per command line."""

    def __init__(self, ls: AgentLanguageServer) -> None:
        self.ls = ls

    async def ask(self, request: CommandRequest) -> Consent:
        params = types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=consent_message(request),
            actions=[types.MessageActionItem(title=title) for title in CHOICES],
        )
        try:
            answer = await self.ls.window_show_message_request_async(params)
        except Exception as error:  # an editor that cannot show it: nothing runs
            log.warning("the consent prompt failed (%s): command denied", error)
            return Consent.DENY
        if answer is None:
            return Consent.DENY
        return CHOICES.get(answer.title, Consent.DENY)
