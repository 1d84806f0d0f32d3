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
from actions.paths import ResolvedPath, Workspace
from actions.schema import DeleteFileOp, FileOp, UpdateFileOp
from actions.search_replace import EditBlock
from actions.update_edits import EditsRefused, edit_text


@dataclass
class PlanRun:
    description: str
    files: list[str]
    recorder: PlanRecorder
    applied: list[str] = field(default_factory=list)
    unplanned: list[str] = field(default_factory=list)
    kept: dict[str, tuple[EditBlock, ...]] = field(default_factory=dict)
    """Search/replace blocks that matched in a failed update, by path: they apply with the
    corrected blocks of the next update of that path."""

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
        content = op.content
        if isinstance(op, UpdateFileOp) and op.edits is not None:
            content = await self._edited(plan, target, op)
        if content is not None:
            plan.recorder.check_content(target.relative, len(content.encode("utf-8")))
        plan.kept.pop(target.relative, None)
        if content is not None:
            plan.recorder.check_content(target.relative, len(content.encode("utf-8")))
        await asyncio.to_thread(plan.recorder.touch, target.relative)
        await self.applier.apply([FileWrite(target, content)])
        if target.relative not in plan.files and target.relative not in plan.unplanned:
            plan.unplanned.append(target.relative)
        if target.relative not in plan.applied:
            plan.applied.append(target.relative)
        return target.relative

    async def _edited(self, plan: PlanRun, target: ResolvedPath, op: UpdateFileOp) -> str:
        """The file's new text: its search/replace blocks (and the kept ones) applied to what
        the user sees (open buffer, else disk)."""
        current = await self.applier.current_text(target)
        blocks = [EditBlock(edit.search, edit.replace) for edit in op.edits or ()]
        try:
            return edit_text(current, target.model_path, blocks, plan.kept.get(target.relative, ()))
        except EditsRefused as refused:
            plan.kept[target.relative] = refused.kept
            raise

    def already_applied(self, plan: PlanRun, op: FileOp) -> bool:
        """Was exactly this file operation applied by the plan already (a repeated document)?"""
        try:
            target = self.workspace.resolve(op.path, for_write=True)
        except ActionError:
            return False
        if target.relative not in plan.applied:
            return False
        try:
            if isinstance(op, DeleteFileOp):
                return not target.absolute.exists()
            text = target.absolute.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return False
        if isinstance(op, UpdateFileOp) and op.edits is not None:
            return all(
                edit.replace in text and (edit.search == edit.replace or edit.search not in text)
                for edit in op.edits
            )
        return text == op.content

    async def commit(self, plan: PlanRun) -> str | None:
        """Record the plan's post-images; its checkpoint id (None when nothing changed)."""
        info = await asyncio.to_thread(plan.recorder.commit)
        return info.id if info is not None else None

    async def rollback(self, plan: PlanRun) -> None:
        """Put every file the plan touched back as it was, on disk and in open buffers."""
        transition = await asyncio.to_thread(plan.recorder.rollback)
        await self.applier.sync(transition.changes)
