"""`/undo`, `/redo`, `/checkpoints` for ACP clients: the same checkpoint store as the LSP
server and the CLI, answered as text the client shows in the conversation."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from actions.checkpoints import CheckpointError
from server.workspace import Folders, FolderUnavailable


async def checkpoint_command(
    folders: Folders, root: Path, name: str, args: list[str], secret_allow: Sequence[str] = ()
) -> str:
    force = "force" in args or "--force" in args
    try:
        store = (await folders.get(root, secret_allow)).store
        if name == "checkpoints":
            infos = await asyncio.to_thread(store.list)
            if not infos:
                return "No checkpoints yet."
            return "\n".join(
                f"- {i.id} {i.iso_time} {i.state}: {i.description} ({', '.join(i.files)})"
                for i in infos
            )
        move = store.undo if name == "undo" else store.redo
        transition = await asyncio.to_thread(move, force=force)
    except FolderUnavailable as exc:
        return f"{name} refused: {exc}"
    except CheckpointError as exc:
        hint = " (run /undo force to overwrite them)" if "changed" in str(exc) else ""
        return f"{name} refused: {exc}{hint}"
    done = "Undid" if name == "undo" else "Redid"
    files = ", ".join(
        f"{c.path}{' (deleted)' if c.content is None else ''}" for c in transition.changes
    )
    return f"{done} {transition.checkpoint_id}: {files}"
