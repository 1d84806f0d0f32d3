"""`workspace/executeCommand` agent.undo, agent.redo, agent.checkpoints (SPEC §7).

Undo and redo go through the same path as plans: the checkpoint store restores the disk
(journaled, crash-safe), then the editor applier brings open buffers to the same content.
Before reverting, each file is compared with what the plan left, both on disk and in its
open editor buffer: a file changed in either place (typing not yet saved, or a write by
another program that the editor has not reloaded — Neovim does not by default) is refused
by name unless `force`, so undo never silently clobbers work. Quick fixes' checkpoints go
through the same commands.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from actions.checkpoints import CheckpointStore
from actions.checkpoints.types import CheckpointConflict, CheckpointError, Transition
from server.editor import EditorApplier, LspEditor
from server.lsp import AgentLanguageServer, RequestFailed
from server.protocol import (
    CMD_CHECKPOINTS,
    CMD_REDO,
    CMD_UNDO,
    CheckpointEntry,
    UndoneFile,
    UndoResult,
    checkpoint_entry,
)
from server.wording import conflict_message
from server.workspace import FolderUnavailable


def register(server: AgentLanguageServer) -> None:
    server.command(CMD_UNDO)(undo)
    server.command(CMD_REDO)(redo)
    server.command(CMD_CHECKPOINTS)(checkpoints)


def _force(args: tuple[Any, ...]) -> bool:
    options = args[0] if args else None
    return bool(isinstance(options, dict) and options.get("force"))


async def _store(ls: AgentLanguageServer) -> tuple[Path, CheckpointStore]:
    root = ls.root()
    if root is None:
        raise RequestFailed("no workspace folder is open: there is no plan history")
    try:
        config, _ = ls.state.config()
        folder = await ls.state.folders.get(root, config.allowSecretFiles)
    except FolderUnavailable as exc:
        raise RequestFailed(str(exc)) from None
    return root, folder.store


async def _move(ls: AgentLanguageServer, kind: str, force: bool) -> UndoResult:
    root, store = await _store(ls)

    buffers = _open_buffers(ls, root)
    move = store.undo if kind == "undo" else store.redo
    try:
        transition: Transition = await asyncio.to_thread(move, force=force, buffers=buffers.get)
    except CheckpointConflict as exc:
        hint = 'pass the argument {"force": true}'
        raise RequestFailed(
            f"{kind}: {conflict_message(kind, exc.paths, hint, exc.places)}"
        ) from None
    except CheckpointError as exc:
        raise RequestFailed(f"{kind}: {exc}") from None
    await EditorApplier(LspEditor(ls), root, sync_any=True).sync(transition.changes)
    return UndoResult(
        checkpoint_id=transition.checkpoint_id,
        files=[UndoneFile(path=c.path, exists=c.content is not None) for c in transition.changes],
        overridden=list(transition.overridden),
    )


def _open_buffers(ls: AgentLanguageServer, root: Path) -> dict[str, bytes]:
    """The text of every buffer open under `root`, by workspace-relative path, read now on
    the event loop (the store compares them, with the disk, from its thread)."""
    found: dict[str, bytes] = {}
    for uri, document in list(ls.workspace.text_documents.items()):
        path = Path(document.path) if uri.startswith("file:") else None
        if path is None or not path.is_relative_to(root):
            continue
        text: str = document.source
        found[path.relative_to(root).as_posix()] = text.encode("utf-8")
    return found


async def undo(ls: AgentLanguageServer, *args: Any) -> UndoResult:
    return await _move(ls, "undo", _force(args))


async def redo(ls: AgentLanguageServer, *args: Any) -> UndoResult:
    return await _move(ls, "redo", _force(args))


async def checkpoints(ls: AgentLanguageServer, *args: Any) -> list[CheckpointEntry]:
    _, store = await _store(ls)
    infos = await asyncio.to_thread(store.list)
    return [checkpoint_entry(info) for info in infos]
