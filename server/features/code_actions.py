"""`textDocument/codeAction`, `codeAction/resolve` and the `agent.chat` command (SPEC §8).

Listing is instant and never calls the model: each action carries in `data` what resolve
needs (which action, the document URI, the range, the diagnostic); the text itself is read
at resolve time from the editor's buffer (or the disk), so it is what the user sees then.
- "Ask AI to fix: <message>" (quickfix), one per diagnostic of the request that overlaps the
  requested range; the model gets the diagnostic, the lines around it and the file's path.
- On a non-empty selection (refactor.rewrite): "Rewrite with AI…", "Explain",
  "Add docstrings", "Write tests". A client may put its own wording in `data.instruction`
  before resolving (e.g. the VS Code extension asking "Rewrite how?").

Resolving an editing action runs one agent turn, in a new chat session, while the request is
pending. The agent applies its plan itself, exactly as `agent/chat` does: open buffers through
`workspace/applyEdit`, then the disk, all in one checkpoint that `agent.undo` reverts. So the
resolved action's `edit` is an empty WorkspaceEdit: it is resolved and nothing is left for the
client to apply (returning the plan as `edit` would apply it twice and bypass the checkpoint).
The user sees the turn through `$/progress` (when the client supports it) and
`agent/chatProgress`, then a `window/showMessage` with what changed and the model's answer;
a failure is shown the same way and answered with RequestFailed. Cancelling the resolve
request stops the turn and rolls the plan back.

"Explain" edits nothing: it carries a `agent.chat` command `{message, context}`, filled at
listing time when the client cannot resolve `command` lazily (VS Code lists only `edit`), at
resolve time otherwise. Clients with a chat panel open it; for the others the server's own
`agent.chat` command runs the turn and shows the answer with `window/showMessage`.
Clients that cannot resolve at all get every action as such an `agent.chat` command.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path

from actions.paths import shown_path as shown
from server.features.chat import LspSink, editor_turn, open_chat
from server.features.configuration import settled
from server.features.review import review_actions
from server.lsp import AgentLanguageServer, RequestFailed
from server.protocol import (
    CMD_CHAT,
    CMD_UNDO,
    ChatContext,
    ChatParams,
    ChatResult,
    ReviewPlan,
    to_wire,
)
from server.turns.turn import TurnOutcome
from server.wording import empty_message_problem

log = logging.getLogger(__name__)

ActionName = Literal["fix", "rewrite", "explain", "docstrings", "tests"]
CONTEXT_LINES = 5  # lines shown above and below a diagnostic
TITLE_MESSAGE_CHARS = 80
SHOWN_ANSWER_CHARS = 2000
QUICKFIX = types.CodeActionKind.QuickFix
REWRITE = types.CodeActionKind.RefactorRewrite
SELECTION_TITLES: dict[ActionName, str] = {
    "rewrite": "Rewrite with AI…",
    "explain": "Explain",
    "docstrings": "Add docstrings",
    "tests": "Write tests",
}


@attrs.define(frozen=True)
class ActionData:
    """The `data` of a listed action: everything resolve needs, as JSON (camelCase)."""

    action: ActionName
    uri: str
    range: types.Range
    diagnostic: types.Diagnostic | None = None
    instruction: str | None = None
    result: ChatResult | None = None  # set on the resolved action: what the turn did


@attrs.define(frozen=True)
class Request:
    """What the model is asked, and the editor context sent with it."""

    message: str
    context: ChatContext | None


def register(server: AgentLanguageServer) -> None:
    options = types.CodeActionOptions(code_action_kinds=[QUICKFIX, REWRITE], resolve_provider=True)
    server.feature(types.TEXT_DOCUMENT_CODE_ACTION, options)(code_action)
    server.feature(types.CODE_ACTION_RESOLVE)(resolve_code_action)
    server.command(CMD_CHAT)(chat_command)


# Listing ---------------------------------------------------------------------------------


def code_action(ls: AgentLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The AI actions for this range; instant (no model call)."""
    uri, wanted = params.text_document.uri, params.range
    path = file_path(uri)
    if path is None:
        return []
    editable = ls.folder_of(path) is not None
    actions: list[ActionData] = []
    if editable and allowed(QUICKFIX, params.context.only):
        actions += [
            ActionData("fix", uri, d.range, diagnostic=d)
            for d in params.context.diagnostics
            if on_lines_of(d.range, wanted)
        ]
    if wanted.start != wanted.end and allowed(REWRITE, params.context.only):
        names: list[ActionName] = list(SELECTION_TITLES) if editable else ["explain"]
        actions += [ActionData(name, uri, wanted) for name in names]
    found = [action for data in actions if (action := listed(ls, data)) is not None]
    if allowed(QUICKFIX, params.context.only):
        found += review_actions(ls, uri)  # a pending plan (review mode) touches this file
    return found


def listed(ls: AgentLanguageServer, data: ActionData) -> types.CodeAction | None:
    """The action as listed; None when its command cannot be built (file unreadable)."""
    action = types.CodeAction(
        title=title(data),
        kind=QUICKFIX if data.action == "fix" else REWRITE,
        diagnostics=[data.diagnostic] if data.diagnostic is not None else None,
        data=to_wire(data),
    )
    eager = not can_resolve(ls, "edit") or (
        data.action == "explain" and not can_resolve(ls, "command")
    )
    if not eager:
        return action
    try:
        return attrs.evolve(action, command=chat_command_for(ls, data))
    except RequestFailed as exc:
        log.info("no code action for %s: %s", data.uri, exc)
        return None


def title(data: ActionData) -> str:
    if data.diagnostic is None:
        return SELECTION_TITLES[data.action]
    message = data.diagnostic.message.strip().splitlines()[0] if data.diagnostic.message else ""
    if len(message) > TITLE_MESSAGE_CHARS:
        message = message[: TITLE_MESSAGE_CHARS - 1] + "…"
    return f"Ask AI to fix: {message}"


def can_resolve(ls: AgentLanguageServer, prop: str) -> bool:
    """Whether the client resolves this CodeAction property lazily."""
    return prop in ls.state.client.code_action_resolve


def allowed(kind: str, only: Sequence[str] | None) -> bool:
    """`context.only` filtering: a kind matches itself and every kind below it."""
    return only is None or any(kind == o or kind.startswith(o + ".") or o == "" for o in only)


def on_lines_of(a: types.Range, b: types.Range) -> bool:
    """Ranges that share a line: Neovim sends the cursor and every diagnostic of its line."""
    return a.start.line <= b.end.line and b.start.line <= a.end.line


def file_path(uri: str) -> Path | None:
    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return Path(path) if path else None


# What the model is asked -------------------------------------------------------------------


def request_for(ls: AgentLanguageServer, data: ActionData) -> Request:
    """The instruction for the action, with the text it is about (read now)."""
    where = shown_path(ls, data.uri)
    document = ls.workspace.get_text_document(data.uri)
    try:
        source = document.source
    except (OSError, UnicodeDecodeError) as exc:
        raise RequestFailed(f"cannot read {where}: {exc}") from None
    if data.diagnostic is not None:
        return fix_request(data, where, source.splitlines(keepends=True))
    start = document.offset_at_position(data.range.start)
    selection = source[start : document.offset_at_position(data.range.end)]
    first, last = data.range.start.line + 1, data.range.end.line + 1
    instruction = data.instruction or default_instruction(data.action, where, first, last)
    return Request(
        instruction, ChatContext(uri=data.uri, range=data.range, selection_text=selection)
    )


def default_instruction(action: ActionName, where: str, first: int, last: int) -> str:
    span = f"{where} (lines {first}-{last})"
    return {
        "rewrite": f"Rewrite the selected code of {span} to be clearer and simpler, keeping "
        "its behaviour. Apply the change to the file and say in one sentence what changed.",
        "explain": f"Explain what the selected code of {span} does, briefly.",
        "docstrings": f"Add docstrings to the functions, classes and methods in the selected "
        f"code of {span}, in the usual style of the file's language. Change nothing else.",
        "tests": f"Write tests for the selected code of {span}: put them in a new test file "
        "where this project keeps its tests (look at the files first), using the project's "
        "test framework and conventions. Do not change the code under test.",
        "fix": f"Fix the selected code of {span}.",
    }[action]


def fix_request(data: ActionData, where: str, lines: list[str]) -> Request:
    diagnostic = data.diagnostic
    assert diagnostic is not None
    line = diagnostic.range.start.line
    first = max(0, line - CONTEXT_LINES)
    last = min(len(lines), diagnostic.range.end.line + CONTEXT_LINES + 1)
    source = f" ({diagnostic.source})" if diagnostic.source else ""
    code = f" [{diagnostic.code}]" if diagnostic.code is not None else ""
    message = (
        f"Fix this problem in {where}, line {line + 1}{source}{code}: {diagnostic.message}\n"
        "Change only what is needed to fix it and keep the rest of the file as it is."
    )
    window = types.Range(types.Position(first, 0), types.Position(max(first, last - 1), 0))
    return Request(
        message, ChatContext(uri=data.uri, range=window, selection_text="".join(lines[first:last]))
    )


def shown_path(ls: AgentLanguageServer, uri: str) -> str:
    """The file as the model's tools name it (`/src/app.py`; `/frontend/src/app.py` in a
    multi-root workspace), else its full path."""
    path = file_path(uri)
    if path is None:
        return uri
    root = ls.folder_of(path)
    if root is not None:
        relative = path.resolve().relative_to(root.resolve()).as_posix()
        return shown(ls.folder_name(root), relative)
    return str(path)


def chat_command_for(ls: AgentLanguageServer, data: ActionData) -> types.Command:
    request = request_for(ls, data)
    arguments = {"message": request.message, "context": to_wire(request.context)}
    return types.Command(title=title(data), command=CMD_CHAT, arguments=[arguments])


# Resolving and running ---------------------------------------------------------------------


async def resolve_code_action(
    ls: AgentLanguageServer, action: types.CodeAction
) -> types.CodeAction:
    """Explain: the chat command. Otherwise run the turn; its plan is applied on the way."""
    data = ls.typed(action.data, ActionData)
    if data.action == "explain":
        return attrs.evolve(action, command=chat_command_for(ls, data))
    session_id, outcome = await run_and_show(ls, action.title, request_for(ls, data), None)
    result = attrs.evolve(outcome.result(session_id), blocks=[])
    return attrs.evolve(
        action,
        edit=types.WorkspaceEdit(changes={}),
        data=to_wire(attrs.evolve(data, result=result)),
    )


async def chat_command(ls: AgentLanguageServer, *args: Any) -> ChatResult:
    """`agent.chat {message, context?, sessionId?}` for clients without a chat panel."""
    params = ls.command_argument(CMD_CHAT, args, ChatParams)
    problem = empty_message_problem(params.message)
    if problem is not None:
        raise JsonRpcInvalidParams(f"invalid params: {problem}")
    request = Request(params.message, params.context)
    session_id, outcome = await run_and_show(ls, "agent-ls", request, params.session_id)
    return outcome.result(session_id)


async def run_and_show(
    ls: AgentLanguageServer, label: str, request: Request, session_id: str | None
) -> tuple[str, TurnOutcome]:
    """One agent turn with progress; its outcome (or failure) shown to the user."""
    await settled(ls)
    session = await open_chat(ls, session_id)
    sink = LspSink(ls, session.id, await progress_token(ls))

    def report(exc: Exception) -> None:
        show(ls, types.MessageType.Error, f"{label} failed: {exc}")

    outcome = await editor_turn(ls, session, request.message, request.context, sink, report)
    show(ls, types.MessageType.Info, summary(label, outcome))
    return session.id, outcome


async def progress_token(ls: AgentLanguageServer) -> str | None:
    """A server-initiated work-done progress token, when the client shows them."""
    if not ls.state.client.work_done_progress:
        return None
    token = f"agent-ls/{uuid.uuid4().hex[:12]}"
    try:
        await ls.work_done_progress.create_async(token)
    except Exception as exc:  # the client refused: the turn runs without a spinner
        log.info("window/workDoneProgress/create failed: %s", exc)
        return None
    return token


def summary(label: str, outcome: TurnOutcome) -> str:
    """What the user is told once the turn is over."""
    text = outcome.text.strip()
    if len(text) > SHOWN_ANSWER_CHARS:
        text = text[: SHOWN_ANSWER_CHARS - 1] + "…"
    if outcome.plan is None:
        return f"{label} — {text}" if text else f"{label} — no answer and no change."
    if isinstance(outcome.plan, ReviewPlan):
        staged = ", ".join(f.path for f in outcome.plan.files)
        head = f"{label} — staged for review: {staged} (Accept / Reject AI change)"
        return f"{head}\n{text}" if text else head
    changed = ", ".join(outcome.plan.applied) or "nothing"
    head = f"{label} — changed {changed} (undo: {CMD_UNDO})"
    return f"{head}\n{text}" if text else head


def show(ls: AgentLanguageServer, kind: types.MessageType, message: str) -> None:
    ls.window_show_message(types.ShowMessageParams(type=kind, message=message))
