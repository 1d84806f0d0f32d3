"""`agent.accept` / `agent.reject` (review mode, `agentLs.review: "on"`) and the
"Accept / Reject AI change" code actions offered on the files of a pending plan.

A chat turn in review mode stages its plan (actions/review.py): nothing reaches the disk or
the buffers. `agent.accept [{planId, files?}]` applies the listed (default: all pending)
files as one checkpoint, refusing by name any file changed since it was staged (on disk or
in its open buffer); `agent.reject [{planId, files?, reason?}]` discards them and the reason
reaches the model with the session's next message. Both return the plan (`ReviewPlan`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from actions.apply import ApplyRefused
from actions.checkpoints.types import CheckpointError
from actions.diskio import read_bytes_or_none
from actions.errors import ActionError
from actions.paths import qualified
from actions.review import (
    ReviewBoard,
    ReviewError,
    StagedFile,
    StagedPlan,
    apply_staged,
    changed_since_staged,
)
from server.editor import EditorApplier, LspEditor
from server.features.folders import require_workspace
from server.lsp import AgentLanguageServer, RequestFailed
from server.protocol import (
    CMD_ACCEPT,
    CMD_REJECT,
    CMD_STAGED_CONTENT,
    AcceptParams,
    RejectParams,
    ReviewFile,
    ReviewPlan,
    ReviewProgress,
    StagedContent,
    StagedContentParams,
    to_wire,
)


def register(server: AgentLanguageServer) -> None:
    server.command(CMD_ACCEPT)(accept)
    server.command(CMD_REJECT)(reject)
    server.command(CMD_STAGED_CONTENT)(staged_content)


def review_files(plan: StagedPlan) -> list[ReviewFile]:
    return [
        ReviewFile(path=f.path, op=f.op, state=f.state, reason=f.reason or None)
        for f in plan.files.values()
    ]


def review_plan(
    plan: StagedPlan, checkpoint_id: str | None = None, refused: list[str] | None = None
) -> ReviewPlan:
    return ReviewPlan(
        plan_id=plan.plan_id,
        state=plan.state,
        description=plan.description,
        files=review_files(plan),
        checkpoint_id=checkpoint_id,
        refused=refused,
    )


def review_progress(plan: StagedPlan) -> ReviewProgress:
    return ReviewProgress(
        plan_id=plan.plan_id,
        state=plan.state,
        description=plan.description,
        files=review_files(plan),
    )


def _board(ls: AgentLanguageServer) -> tuple[Path, ReviewBoard]:
    root = ls.root()
    if root is None:
        raise RequestFailed("no workspace folder is open: there is no plan to review")
    return root, ls.state.board(root)


def _current(ls: AgentLanguageServer, root: Path, staged: StagedFile) -> str | None:
    """The file as it is now if disk and open buffer agree; a marker when they differ."""
    path = staged.target.absolute  # in whichever folder of the workspace
    data = read_bytes_or_none(path)
    disk = data.decode("utf-8", errors="surrogateescape") if data is not None else None
    document = ls.workspace.text_documents.get(path.as_uri())
    if document is not None and document.source != disk:
        return "\x00buffer differs from disk"
    return disk


def _chosen(
    board: ReviewBoard, verb: str, plan_id: str, paths: list[str] | None
) -> tuple[StagedPlan, list[StagedFile]]:
    """The plan and its pending files named by a decision (RequestFailed when it cannot be)."""
    try:
        plan = board.get(plan_id)
        return plan, plan.select(paths)
    except ReviewError as exc:
        raise RequestFailed(f"{verb}: {exc}") from None


async def accept(ls: AgentLanguageServer, *args: Any) -> Any:
    params = ls.command_argument(CMD_ACCEPT, args, AcceptParams)
    root, board = _board(ls)
    plan, files = _chosen(board, "accept", params.plan_id, params.files)
    ready, refused = await asyncio.to_thread(
        changed_since_staged, files, lambda staged: _current(ls, root, staged)
    )
    checkpoint_id = None
    if ready:
        try:
            opened = await require_workspace(ls, "there is no plan to review")
            history = opened.group() if opened.multi else opened.primary.store
            applier = EditorApplier(LspEditor(ls), root, folders=opened.paths())
            checkpoint_id = await apply_staged(history, applier, plan, ready)
        except (ApplyRefused, ActionError, CheckpointError) as exc:
            raise RequestFailed(f"accept: nothing was applied: {exc}") from None
    reasons = [r.reason for r in refused]
    if reasons:
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning,
                message="agent-ls: not accepted: " + "; ".join(reasons),
            )
        )
    return to_wire(review_plan(plan, checkpoint_id, reasons or None))


async def reject(ls: AgentLanguageServer, *args: Any) -> Any:
    params = ls.command_argument(CMD_REJECT, args, RejectParams)
    _, board = _board(ls)
    plan, files = _chosen(board, "reject", params.plan_id, params.files)
    board.reject(plan, files, (params.reason or "").strip())
    return to_wire(review_plan(plan))


async def staged_content(ls: AgentLanguageServer, *args: Any) -> Any:
    """The content a plan proposes for one file (what the editor shows against the disk)."""
    params = ls.command_argument(CMD_STAGED_CONTENT, args, StagedContentParams)
    _, board = _board(ls)
    try:
        plan = board.get(params.plan_id)
    except ReviewError as exc:
        raise RequestFailed(f"stagedContent: {exc}") from None
    staged = plan.file(params.path)
    if staged is None:
        known = ", ".join(plan.files) or "none"
        raise RequestFailed(
            f"stagedContent: {params.path} is not a file of plan {params.plan_id} (files: {known})"
        )
    return to_wire(
        StagedContent(path=staged.path, op=staged.op, state=staged.state, content=staged.content)
    )


def review_actions(ls: AgentLanguageServer, uri: str) -> list[types.CodeAction]:
    """Accept / Reject actions for a file of a pending plan (and its whole plan)."""
    root, path = ls.root(), to_fs_path(uri)
    folder = ls.folder_of(Path(path)) if path else None
    if root is None or path is None or folder is None:
        return []
    inner = Path(path).resolve().relative_to(folder.resolve()).as_posix()
    relative = qualified(ls.folder_name(folder), inner)  # as staged plans name files
    actions = []
    for plan in ls.state.board(root).plans.values():
        staged = plan.files.get(relative)
        if staged is None or staged.state != "pending":
            continue
        one = {"planId": plan.plan_id, "files": [relative]}
        whole = {"planId": plan.plan_id}
        count = len(plan.pending())
        actions += [
            _command_action(f"Accept AI change to {relative}", CMD_ACCEPT, one),
            _command_action(f"Reject AI change to {relative}", CMD_REJECT, one),
        ]
        if count > 1:
            actions += [
                _command_action(
                    f"Accept all AI changes of the plan ({count} files)", CMD_ACCEPT, whole
                ),
                _command_action(
                    f"Reject all AI changes of the plan ({count} files)", CMD_REJECT, whole
                ),
            ]
    return actions


def _command_action(title: str, command: str, argument: dict[str, Any]) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        command=types.Command(title=title, command=command, arguments=[argument]),
    )
