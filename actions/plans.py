"""A multi-file plan in progress: confined paths, checkpoint recording, applying files.

One plan = one checkpoint. Every file is recorded (pre-image) before it is written; when the
plan aborts, the recorder restores the pre-images of the files it wrote (only those: a planned
file not written yet is left alone, on disk and in the editor) and the applier re-syncs them.
With a `BufferSource` (the editor's buffers), a pre-image is what the user sees: where the
editor's buffer differs from the disk (an ACP client's unsaved buffer), the buffer is what a
rollback or undo restores.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from actions.apply import Applier, FileWrite
from actions.buffers import MAX_BUFFER_BYTES, BufferSource, read_buffer
from actions.checkpoints import CheckpointStore, PlanRecorder
from actions.checkpoints.group import GroupRecorder, StoreGroup
from actions.errors import ActionError, WriteFailed
from actions.paths import PathResolver, ResolvedPath, Workspace, qualified
from actions.roots import Roots
from actions.schema import DeleteFileOp, FileOp, UpdateFileOp
from actions.search_replace import EditBlock
from actions.update_edits import EditsRefused, edit_text

T = TypeVar("T")


@dataclass
class PlanRun:
    description: str
    files: list[str]
    recorder: PlanRecorder | GroupRecorder
    applied: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    """The paths the plan wrote (or was writing when it was cancelled): the ones a rollback
    restores. A planned file not written yet is never touched by the rollback."""
    unplanned: list[str] = field(default_factory=list)
    kept: dict[str, tuple[EditBlock, ...]] = field(default_factory=dict)
    """Search/replace blocks that matched in a failed update, by path: they apply with the
    corrected blocks of the next update of that path."""

    @property
    def remaining(self) -> list[str]:
        return [path for path in self.files if path not in self.applied]


class PlanFiles:
    """Starts plans and applies their files to one workspace folder, or to every folder of a
    multi-root workspace (`roots` and `group`: one checkpoint store per folder; a plan's
    paths are then qualified by folder name, ``frontend/src/app.ts``)."""

    def __init__(
        self,
        workspace: Workspace,
        store: CheckpointStore,
        applier: Applier,
        *,
        roots: Roots | None = None,
        group: StoreGroup | None = None,
        buffers: BufferSource | None = None,
    ) -> None:
        """`buffers`: the editor's text of files, the pre-image where it differs from the
        disk (None: the disk; a plan staged for review writes nothing and takes none)."""
        self.workspace = workspace
        self.store = store
        self.applier = applier
        self.buffers = buffers
        self.roots = roots if roots is not None and roots.multi else None
        self.resolver: PathResolver = self.roots or workspace
        self.recording: CheckpointStore | StoreGroup = store
        if self.roots is not None and group is not None:
            self.recording = group

    async def start(self, description: str, files: list[str], session_id: str) -> PlanRun:
        """A new plan; its planned paths are confined now (PathRefused names the bad one)."""
        targets: dict[str, ResolvedPath] = {}
        for path in files:
            target = self.resolver.resolve(path, for_write=True)
            targets.setdefault(_key(target), target)
        unique = list(targets)
        images = await self._seen_images(targets.items())
        recording = self.recording
        recorder: PlanRecorder | GroupRecorder = await asyncio.to_thread(
            self._storing,
            lambda: recording.begin_plan(
                description=description,
                session_id=session_id,
                paths=[key for key in unique if key not in images],
            ),
        )
        if images:
            try:
                await asyncio.to_thread(self._storing, lambda: recorder.touch_captured(images))
            except BaseException:
                recorder.discard()  # nothing was written yet
                raise
        return PlanRun(description, unique, recorder)

    async def _seen_images(
        self, targets: Iterable[tuple[str, ResolvedPath]]
    ) -> dict[str, tuple[bytes | None, bool]]:
        """The pre-images the user sees where they differ from the disk (an editor's unsaved
        buffer), by key: what a rollback or undo of the plan must give back."""
        images: dict[str, tuple[bytes | None, bool]] = {}
        if self.buffers is None:
            return images
        for key, target in targets:
            disk = await asyncio.to_thread(_disk_image, target)
            if disk is None:
                continue
            seen = (await read_buffer(self.buffers, target.absolute)).text
            if seen is not None and seen.encode("utf-8") != disk[0]:
                images[key] = (seen.encode("utf-8"), disk[1])
        return images

    async def _touch(self, plan: PlanRun, key: str, target: ResolvedPath) -> None:
        """Record the pre-image of a file before its first write (planned files were
        recorded when the plan started)."""
        if key in plan.recorder.paths:
            return
        images = await self._seen_images([(key, target)])
        recorder = plan.recorder
        if images:
            await asyncio.to_thread(self._storing, lambda: recorder.touch_captured(images))
        else:
            await asyncio.to_thread(self._storing, lambda: recorder.touch(key))

    def _storing(self, work: Callable[[], T]) -> T:
        """`work()` on the checkpoint store; a refused write (disk full...) is WriteFailed
        naming the store."""
        try:
            return work()
        except OSError as error:
            raise WriteFailed(f"the checkpoint store ({self.store.store_dir})", error) from None

    async def apply(self, plan: PlanRun, op: FileOp) -> str:
        """Apply one file of the plan; returns its workspace-relative path."""
        target = self.resolver.resolve(op.path, for_write=True)
        key = _key(target)
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
            plan.recorder.check_content(key, len(content.encode("utf-8")))
        plan.kept.pop(key, None)
        await self._touch(plan, key, target)
        await self._write(plan, key, FileWrite(target, content))
        if key not in plan.files and key not in plan.unplanned:
            plan.unplanned.append(key)
        if key not in plan.applied:
            plan.applied.append(key)
        return key

    async def _write(self, plan: PlanRun, key: str, write: FileWrite) -> None:
        """Write one file, remembering it for a rollback from before the write starts (a
        cancelled write may have landed); a refused write wrote nothing."""
        first = key not in plan.written
        if first:
            plan.written.append(key)
        try:
            await self.applier.apply([write])
        except Exception:
            if first:
                plan.written.remove(key)
            raise

    async def _edited(self, plan: PlanRun, target: ResolvedPath, op: UpdateFileOp) -> str:
        """The file's new text: its search/replace blocks (and the kept ones) applied to what
        the user sees (open buffer, else disk)."""
        current = await self.applier.current_text(target)
        blocks = [EditBlock(edit.search, edit.replace) for edit in op.edits or ()]
        key = _key(target)
        try:
            return edit_text(current, target.model_path, blocks, plan.kept.get(key, ()))
        except EditsRefused as refused:
            plan.kept[key] = refused.kept
            raise

    def already_applied(self, plan: PlanRun, op: FileOp) -> bool:
        """Was exactly this file operation applied by the plan already (a repeated document)?"""
        try:
            target = self.resolver.resolve(op.path, for_write=True)
        except ActionError:
            return False
        if _key(target) not in plan.applied:
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
        info = await asyncio.to_thread(self._storing, plan.recorder.commit)
        return info.id if info is not None else None

    async def rollback(self, plan: PlanRun) -> list[str]:
        """Put every file the plan wrote back as it was, on disk and in open buffers (a
        planned file not written yet is left alone); the restored paths."""
        written = set(plan.written)
        transition = await asyncio.to_thread(plan.recorder.rollback, written)
        await self.applier.sync(transition.changes)
        return [state.path for state in transition.changes]


def _disk_image(target: ResolvedPath) -> tuple[bytes, bool] | None:
    """(content, executable) of an existing UTF-8 text file small enough to compare with the
    editor's text; None otherwise (its disk bytes are then its pre-image, as the store
    records them: an editor's text of a binary file is never one)."""
    try:
        with open(target.absolute, "rb") as handle:
            info = os.fstat(handle.fileno())
            if info.st_size > MAX_BUFFER_BYTES:
                return None
            data = handle.read()
        data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return (data, bool(info.st_mode & 0o100)) if b"\0" not in data else None


def _key(target: ResolvedPath) -> str:
    """How a plan names a file: workspace-relative, qualified by folder in a multi-root one."""
    return qualified(target.label, target.relative)
