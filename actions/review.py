"""Review mode: a plan's files are staged, not written, until the user accepts them (SPEC §7).

With `review: "on"` the agent loop runs exactly as usual, but its applier is a
`StagingApplier`: each file the plan would write is kept in a `StagedPlan` (its new content
and the content it was computed from, `base`); the disk and the editor's buffers are not
touched, and later files of the same plan see the staged text of earlier ones. The turn ends
with the plan `pending`. Then, per file or for the whole plan:

- accept: every accepted file whose current content (disk and open buffer) still equals its
  `base` is applied through the real applier as ONE checkpoint (one undo step); a file that
  changed since it was staged is refused by name and stays pending;
- reject: the files are discarded; the reason (if any) is kept for the model and sent with
  the session's next message.

A new turn while a plan is pending leaves it pending (it can still be accepted or rejected);
the model is told which files wait for review, so it does not send them again.
"""

from __future__ import annotations

import asyncio
import posixpath
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlparse

from actions.apply import Applier, FileWrite
from actions.checkpoints import CheckpointStore, PlanRecorder
from actions.checkpoints.group import GroupRecorder, StoreGroup
from actions.checkpoints.types import FileState
from actions.errors import ActionError
from actions.paths import ResolvedPath, qualified

FileOpName = Literal["create", "update", "delete"]
FileReviewState = Literal["pending", "accepted", "rejected"]
PlanReviewState = Literal["pending", "accepted", "rejected", "partial"]


def _plan_key(path: str) -> str:
    """``/src/./a.py``, ``src\\a.py``, ``./src/a.py`` -> ``src/a.py``, as plans name files."""
    normal = posixpath.normpath(path.replace("\\", "/")).lstrip("/")
    return "" if normal == "." else normal


class ReviewError(ActionError):
    """An accept or reject that cannot be done (unknown plan, file not in it...)."""


@dataclass
class StagedFile:
    path: str
    target: ResolvedPath
    op: FileOpName
    content: str | None  # None: delete
    base: str | None  # the content it was computed from (None: the file did not exist)
    state: FileReviewState = "pending"
    reason: str = ""


@dataclass
class StagedPlan:
    plan_id: str
    session_id: str
    description: str = ""
    files: dict[str, StagedFile] = field(default_factory=dict)
    checkpoint_ids: list[str] = field(default_factory=list)

    @property
    def state(self) -> PlanReviewState:
        states = {f.state for f in self.files.values()}
        if "pending" in states:
            return "pending"
        if states == {"rejected"}:
            return "rejected"
        if states == {"accepted"}:
            return "accepted"
        return "partial"

    def pending(self) -> list[StagedFile]:
        return [f for f in self.files.values() if f.state == "pending"]

    def file(self, path: str) -> StagedFile | None:
        """The staged file `path` names, in any of the forms a client may send: as staged
        (``src/a.py``; ``front/src/a.py`` in a multi-root workspace), as the model sees it
        (``/src/a.py``), ``./src/a.py``, with backslashes, or absolute on disk / a file URI."""
        found = self.files.get(_plan_key(path))
        if found is not None or not path.startswith(("/", "file:")):
            return found
        absolute = Path(unquote(urlparse(path).path) if path.startswith("file:") else path)
        for staged in self.files.values():
            if staged.target.absolute == absolute:
                return staged
        return None

    def select(self, paths: Sequence[str] | None) -> list[StagedFile]:
        """The pending files named by `paths` (all pending ones when None or empty)."""
        if not paths:
            return self.pending()
        chosen = []
        for path in paths:
            staged = self.file(path)
            if staged is None:
                known = ", ".join(self.files) or "none"
                raise ReviewError(f"{path} is not part of plan {self.plan_id} (its files: {known})")
            if staged.state != "pending":
                raise ReviewError(f"{path} was already {staged.state}")
            chosen.append(staged)
        return chosen


def new_plan(session_id: str) -> StagedPlan:
    return StagedPlan(plan_id=uuid.uuid4().hex[:12], session_id=session_id)


class StagingApplier:
    """An Applier that stages writes in `plan` instead of making them (see actions.apply)."""

    def __init__(self, inner: Applier, plan: StagedPlan) -> None:
        self.inner = inner
        self.plan = plan

    async def current_text(self, target: ResolvedPath) -> str:
        staged = self.plan.files.get(qualified(target.label, target.relative))
        if staged is not None:
            if staged.content is None:
                raise ActionError(f"{target.model_path} is deleted by this plan")
            return staged.content
        return await self.inner.current_text(target)

    async def apply(self, writes: Sequence[FileWrite]) -> None:
        for write in writes:
            previous = self.plan.files.get(write.relative)
            if previous is not None:  # a later step of the same plan: the base stays
                previous.content = write.content
                previous.op = _op(previous.base, write.content)
                continue
            base = (
                await self.inner.current_text(write.target)
                if write.target.absolute.is_file()
                else None
            )
            self.plan.files[write.relative] = StagedFile(
                write.relative, write.target, _op(base, write.content), write.content, base
            )

    async def sync(self, states: Sequence[FileState]) -> None:
        return None  # nothing was written: there is nothing to bring back in line


def _op(base: str | None, content: str | None) -> FileOpName:
    if content is None:
        return "delete"
    return "create" if base is None else "update"


@dataclass(frozen=True)
class Refusal:
    path: str
    reason: str


def changed_since_staged(
    files: Sequence[StagedFile], current: Callable[[StagedFile], str | None]
) -> tuple[list[StagedFile], list[Refusal]]:
    """Split `files` into those still based on what is there now and those changed since."""
    ready, refused = [], []
    for staged in files:
        now = current(staged)
        if now == staged.base:
            ready.append(staged)
        else:
            what = (
                "was created"
                if staged.base is None
                else ("was deleted" if now is None else "changed")
            )
            refused.append(
                Refusal(staged.path, f"{staged.path} {what} since the change was staged")
            )
    return ready, refused


@dataclass
class ReviewBoard:
    """The staged plans of one workspace and the review feedback waiting for the model."""

    plans: dict[str, StagedPlan] = field(default_factory=dict)
    feedback: dict[str, list[str]] = field(default_factory=dict)  # session id -> notes

    def add(self, plan: StagedPlan) -> None:
        self.plans[plan.plan_id] = plan

    def get(self, plan_id: str) -> StagedPlan:
        plan = self.plans.get(plan_id)
        if plan is None:
            known = ", ".join(p for p, s in self.plans.items() if s.state == "pending")
            raise ReviewError(f"unknown plan {plan_id!r} (pending plans: {known or 'none'})")
        return plan

    def reject(self, plan: StagedPlan, files: Sequence[StagedFile], reason: str) -> None:
        for staged in files:
            staged.state = "rejected"
            staged.reason = reason
        names = ", ".join(f.path for f in files)
        note = f"The user rejected your change to {names}" + (
            f" with this reason: {reason}" if reason else " (no reason given)"
        )
        self.feedback.setdefault(plan.session_id, []).append(note + ".")

    def take_feedback(self, session_id: str) -> list[str]:
        """Notes for the model at the start of the session's next turn (then forgotten), and
        the files still waiting for review."""
        notes = self.feedback.pop(session_id, [])
        for plan in self.plans.values():
            pending = [f.path for f in plan.pending()]
            if plan.session_id == session_id and pending:
                notes.append(
                    f"Your plan {plan.plan_id} ({', '.join(pending)}) is still waiting for the "
                    "user's review: do not send those files again unless asked."
                )
        return notes


async def apply_staged(
    store: CheckpointStore | StoreGroup,
    applier: Applier,
    plan: StagedPlan,
    files: Sequence[StagedFile],
) -> str | None:
    """Write `files` through `applier` as one checkpoint (rolled back whole on failure);
    its id (None when nothing changed). `store`: every folder's (`StoreGroup`) in a
    multi-root workspace, where staged paths are qualified by folder name."""
    paths = [f.path for f in files]
    recorder: PlanRecorder | GroupRecorder = await asyncio.to_thread(
        lambda: store.begin_plan(
            description=plan.description, session_id=plan.session_id, paths=paths
        )
    )
    written: set[str] = set()  # what a rollback restores: never a file not written yet
    try:
        for staged in files:
            await asyncio.to_thread(recorder.touch, staged.path)
            written.add(staged.path)
            await applier.apply([FileWrite(staged.target, staged.content)])
    except BaseException:
        transition = await asyncio.to_thread(recorder.rollback, written)
        await applier.sync(transition.changes)
        raise
    info = await asyncio.to_thread(recorder.commit)
    for staged in files:
        staged.state = "accepted"
    if info is not None:
        plan.checkpoint_ids.append(info.id)
    return info.id if info is not None else None
