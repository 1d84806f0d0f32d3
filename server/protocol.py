"""Names and payload types of agent-ls' own LSP methods, commands and settings.

Mirrored by `vscode-client/src/constants.ts`; a test checks that both agree.
Payloads are attrs classes structured by pygls' converter (camelCase on the wire).
"""

from __future__ import annotations

from typing import Any, Literal

import attrs
from lsprotocol import types

AGENT_CHAT = "agent/chat"
AGENT_CHAT_PROGRESS = "agent/chatProgress"
AGENT_STATUS = "agent/status"
AGENT_SEARCH = "agent/search"
AGENT_INDEX_UPDATED = "agent/indexUpdated"

CMD_CHAT = "agent.chat"
CMD_UNDO = "agent.undo"
CMD_REDO = "agent.redo"
CMD_CHECKPOINTS = "agent.checkpoints"
CMD_REINDEX = "agent.reindex"
CMD_ACCEPT = "agent.accept"
CMD_REJECT = "agent.reject"

CONFIG_SECTION = "agentLs"

ProgressKind = Literal["text", "tool_call", "tool_result", "plan", "file_applied", "error"]


@attrs.define(frozen=True)
class ChatContext:
    """What the editor was looking at when the user asked."""

    uri: str
    range: types.Range | None = None
    selection_text: str | None = None


@attrs.define(frozen=True)
class ChatParams:
    """Params of `agent/chat`. No `session_id`: a new session is started."""

    message: str = attrs.field(validator=attrs.validators.instance_of(str))
    session_id: str | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.instance_of(str))
    )
    context: ChatContext | None = None
    work_done_token: int | str | None = None


@attrs.define(frozen=True)
class ChatProgress:
    """One `agent/chatProgress` notification; fields beyond `kind` depend on it."""

    session_id: str
    kind: ProgressKind
    delta: str | None = None
    data: dict[str, Any] | None = None


@attrs.define(frozen=True)
class ChatResult:
    """Result of `agent/chat`."""

    session_id: str
    text: str
    blocks: list[dict[str, Any]]
    plan: dict[str, Any] | None = None
    checkpoint_id: str | None = None
