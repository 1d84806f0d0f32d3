"""`workspace/executeCommand` agent.undo, agent.redo, agent.checkpoints (SPEC §7).

Undo and redo go through the same path as plans: the checkpoint store restores the disk
(journaled, crash-safe), then the editor applier brings open buffers to the same content.
Before reverting, each file is compared with what the plan left, both on disk and in its
open editor buffer: a file changed in either place (typing not yet saved, or a write by
another program that the editor has not reloaded — Neovim does not by default) is refused
by name unless `force`, so undo never silently clobbers work. Quick fixes' checkpoints go
through the same commands.

In a multi-root workspace every folder keeps its own store; they act as one history
(actions/checkpoints/group.py): one undo reverts the last plan in every folder it touched,
and paths are qualified by folder name (``frontend/src/app.ts``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from actions.checkpoints import CheckpointStore
from actions.checkpoints.group import StoreGroup
from actions.checkpoints.types import CheckpointConflict, CheckpointError, Transition
from actions.paths import qualified
from server.editor import EditorApplier, LspEditor
from server.features.folders import OpenWorkspace, require_workspace
from server.lsp import AgentLanguageServer, RequestFailed
from server.protocol import (
    CMD_CHECKPOINTS,
    CMD_REDO,
    CMD_UNDO,
    CheckpointEntry,
    MoveParams,
    UndoneFile,
    UndoResult,
    checkpoint_entry,
)
from server.wording import conflict_message


def register(server: AgentLanguageServer) -> None:
    server.command(CMD_UNDO)(undo)
    server.command(CMD_REDO)(redo)
    server.command(CMD_CHECKPOINTS)(checkpoints)


async def _history(ls: AgentLanguageServer) -> tuple[OpenWorkspace, CheckpointStore | StoreGroup]:
    """The undo history: the folder's store, or every folder's as one (multi-root)."""
    opened = await require_workspace(ls, "there is no plan history")
    return opened, opened.group() if opened.multi else opened.primary.store


async def _move(ls: AgentLanguageServer, kind: str, force: bool) -> UndoResult:
    opened, history = await _history(ls)
    folders = opened.paths()
    root = opened.primary.root
    buffers = _open_buffers(ls, folders or {"": root})
    move = history.undo if kind == "undo" else history.redo
    try:
        transition: Transition = await asyncio.to_thread(move, force=force, buffers=buffers.get)
    except CheckpointConflict as exc:
        hint = 'pass the argument {"force": true}'
        raise RequestFailed(
            f"{kind}: {conflict_message(kind, exc.paths, hint, exc.places)}"
        ) from None
    except CheckpointError as exc:
        raise RequestFailed(f"{kind}: {exc}") from None
    applier = EditorApplier(LspEditor(ls), root, sync_any=True, folders=folders)
    await applier.sync(transition.changes)
    return UndoResult(
        checkpoint_id=transition.checkpoint_id,
        files=[UndoneFile(path=c.path, exists=c.content is not None) for c in transition.changes],
        overridden=list(transition.overridden),
    )


def _open_buffers(ls: AgentLanguageServer, folders: Mapping[str, Path]) -> dict[str, bytes]:
    """The text of every buffer open under a folder, by workspace-relative path (qualified
    by folder name in a multi-root workspace), read now on the event loop (the store
    compares them, with the disk, from its thread)."""
    found: dict[str, bytes] = {}
    for uri, document in list(ls.workspace.text_documents.items()):
        path = Path(document.path) if uri.startswith("file:") else None
        for name, root in folders.items():
            if path is None or not path.is_relative_to(root):
                continue
            text: str = document.source
            found[qualified(name, path.relative_to(root).as_posix())] = text.encode("utf-8")
    return found


async def undo(ls: AgentLanguageServer, *args: Any) -> UndoResult:
    return await _move(ls, "undo", ls.command_argument(CMD_UNDO, args, MoveParams).force)


async def redo(ls: AgentLanguageServer, *args: Any) -> UndoResult:
    return await _move(ls, "redo", ls.command_argument(CMD_REDO, args, MoveParams).force)


async def checkpoints(ls: AgentLanguageServer, *args: Any) -> list[CheckpointEntry]:
    opened, history = await _history(ls)
    infos = await asyncio.to_thread(history.list)
    names = list(opened.paths())
    return [checkpoint_entry(info, names) for info in infos]
