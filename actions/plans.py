"""A multi-file plan in progress: confined paths, checkpoint recording, applying files.

One plan = one checkpoint. Every file is recorded (pre-image) before it is written; when the
plan aborts, the recorder restores every pre-image and the applier re-syncs open buffers.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from actions.apply import Applier, FileWrite
from actions.checkpoints import CheckpointStore, PlanRecorder
from actions.errors import ActionError
from actions.paths import Workspace
from actions.schema import DeleteFileOp, FileOp, UpdateFileOp


@dataclass
class PlanRun:
    description: str
    files: list[str]
    recorder: PlanRecorder
    applied: list[str] = field(default_factory=list)
    unplanned: list[str] = field(default_factory=list)

    @property
    def remaining(self) -> list[str]:
        return [path for path in self.files if path not in self.applied]


class PlanFiles:
    """Starts plans and applies their files to one workspace."""

    def __init__(self, workspace: Workspace, store: CheckpointStore, applier: Applier) -> None:
        self.workspace = workspace
        self.store = store
        self.applier = applier

    async def start(self, description: str, files: list[str], session_id: str) -> PlanRun:
        """A new plan; its planned paths are confined now (PathRefused names the bad one)."""
        relatives = [self.workspace.resolve(path, for_write=True).relative for path in files]
        unique = list(dict.fromkeys(relatives))
        recorder = await asyncio.to_thread(
            self.store.begin_plan, description=description, session_id=session_id, paths=unique
        )
        return PlanRun(description, unique, recorder)

    async def apply(self, plan: PlanRun, op: FileOp) -> str:
        """Apply one file of the plan; returns its workspace-relative path."""
        target = self.workspace.resolve(op.path, for_write=True)
        exists = target.absolute.is_file()
        if isinstance(op, UpdateFileOp) and not exists:
            raise ActionError(f"update_file: {target.model_path} does not exist; use create_file")
        if isinstance(op, DeleteFileOp) and not exists:
            raise ActionError(f"delete_file: {target.model_path} does not exist")
        if target.absolute.is_dir():
            raise ActionError(f"{target.model_path} is a folder, not a file")
        if op.content is not None:
            plan.recorder.check_content(target.relative, len(op.content.encode("utf-8")))
        await asyncio.to_thread(plan.recorder.touch, target.relative)
        await self.applier.apply([FileWrite(target, op.content)])
        if target.relative not in plan.files and target.relative not in plan.unplanned:
            plan.unplanned.append(target.relative)
        if target.relative not in plan.applied:
            plan.applied.append(target.relative)
        return target.relative

    def already_applied(self, plan: PlanRun, op: FileOp) -> bool:
        """Was exactly this file operation applied by the plan already (a repeated document)?"""
        try:
            target = self.workspace.resolve(op.path, for_write=True)
        except ActionError:
            return False
        if target.relative not in plan.applied:
            return False
        if op.content is None:
            return not target.absolute.exists()
        try:
            return target.absolute.read_text(encoding="utf-8") == op.content
        except (OSError, UnicodeDecodeError):
            return False

    async def commit(self, plan: PlanRun) -> str | None:
        """Record the plan's post-images; its checkpoint id (None when nothing changed)."""
        info = await asyncio.to_thread(plan.recorder.commit)
        return info.id if info is not None else None

    async def rollback(self, plan: PlanRun) -> None:
        """Put every file the plan touched back as it was, on disk and in open buffers."""
        transition = await asyncio.to_thread(plan.recorder.rollback)
        await self.applier.sync(transition.changes)
