"""PlanRecorder: the checkpoint of one plan while it is being applied.

`touch(path)` records a path's pre-image (blob + plan journal) before the plan writes it;
`commit()` records the post-images and pushes the plan on the undo stack; `rollback()`
restores every pre-image (the abort path) and records nothing. Until one of them runs, the
plan journal under `plans/` is locked by this process, so a crash is recognised on the next
open and rolled back.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from types import TracebackType

from actions.checkpoints.journal import (
    ApplyJournal,
    Entry,
    FileRecord,
    PlanJournal,
    PreImage,
    StoreFiles,
    StoreState,
    Target,
    hold_lock,
    kill_point,
    read_workspace_file,
    save_model,
    set_workspace_file,
    write_private,
)
from actions.checkpoints.objects import TreeItem, blob_sha, commit_object, tree_objects
from actions.checkpoints.pack import object_id, pack_bytes
from actions.checkpoints.recovery import apply_journal
from actions.checkpoints.types import CheckpointInfo, FileState, PlanClosed, Transition


class PlanRecorder:
    """Records one plan; obtained from `CheckpointStore.begin_plan`."""

    def __init__(
        self,
        store: StoreFiles,
        plan_id: str,
        description: str,
        session_id: str,
        paths: Iterable[str] = (),
    ) -> None:
        self._store = store
        self.id = plan_id
        self._plan = PlanJournal(
            id=plan_id, description=description, session_id=session_id, started=time.time()
        )
        self._journal_path, lock_path = store.plan_paths(plan_id)
        self._lock_fd: int | None = None
        paths = list(dict.fromkeys(paths))
        store.policy.check(paths)
        with store.lock():
            self._lock_fd = hold_lock(lock_path)
            try:
                self._record(paths)
            except BaseException:
                store.forget_plan(plan_id)
                self._close()
                raise
        kill_point("touch:journal-written")

    @property
    def paths(self) -> tuple[str, ...]:
        """Paths recorded so far, in order."""
        return tuple(image.path for image in self._plan.files)

    @property
    def closed(self) -> bool:
        return self._lock_fd is None

    def touch(self, path: str) -> None:
        """Capture `path`'s pre-image before its first write (CheckpointRefused if refused)."""
        self.touch_all([path])

    def touch_all(self, paths: Iterable[str]) -> None:
        self._check_open()
        known = set(self.paths)
        new = [path for path in dict.fromkeys(paths) if path not in known]
        if not new:
            return
        store = self._store
        store.policy.check(new)
        with store.lock():
            self._record(new)
        kill_point("touch:journal-written")

    def touch_captured(self, images: Mapping[str, tuple[bytes | None, bool]]) -> None:
        """Record pre-images captured earlier (path -> (content or None, executable)) for
        files something else already changed: an external agent's edits (cli provider)."""
        self._check_open()
        known = set(self.paths)
        new = [path for path in images if path not in known]
        if not new:
            return
        self._store.policy.check(new)
        with self._store.lock():
            self._record(new, lambda path: images[path])
        kill_point("touch:journal-written")

    def _record(
        self,
        paths: list[str],
        read: Callable[[str], tuple[bytes | None, bool]] | None = None,
    ) -> None:
        """Capture pre-images of `paths` (from the disk, or `read`) into one batch file,
        then the plan journal."""
        store = self._store
        captured: list[tuple[str, bytes | None, bool]] = []
        missing = set(self._plan.pre_missing_dirs)
        for path in paths:
            content, executable = (
                read(path) if read is not None else read_workspace_file(store.workspace, path)
            )
            if content is not None:
                store.policy.check_size(path, len(content))
            captured.append((path, content, executable))
            missing.update(store.policy.missing_dirs(path))
        blobs = [(b"blob", content) for _path, content, _exec in captured if content is not None]
        batch: str | None = None
        where: dict[str, tuple[int, int]] = {}
        if blobs:
            batch = f"{self.id}.{len(self._plan.files)}.pack"
            data, where = pack_bytes(blobs)
            write_private(store.plans_dir / batch, data)
        kill_point("touch:blobs-written")
        images = []
        for path, content, executable in captured:
            sha = None if content is None else blob_sha(content)
            offset = where[sha][0] if sha is not None else 0
            images.append(
                PreImage(
                    path=path,
                    sha=sha,
                    executable=executable,
                    batch=batch if sha else None,
                    offset=offset,
                )
            )
        self._plan = self._plan.model_copy(
            update={
                "files": self._plan.files + tuple(images),
                "pre_missing_dirs": tuple(sorted(missing)),
            }
        )
        save_model(self._journal_path, self._plan)

    def discard(self) -> None:
        """Forget the plan without touching the workspace (nothing is restored): for a
        recording of changes something else made, when it cannot be completed."""
        if self.closed:
            return
        with self._store.lock():
            self._store.forget_plan(self.id)
        self._close()

    def check_content(self, path: str, size: int) -> None:
        """Refuse (CheckpointRefused) new content of `size` bytes for `path` before it is
        written: over the size cap its post-image could not be recorded."""
        self._store.policy.check_size(path, size)

    def write(self, path: str, content: bytes | None) -> None:
        """touch + write `content` atomically (None deletes the file)."""
        self.touch(path)
        store = self._store
        if content is not None:
            store.policy.check_size(path, len(content))
        with store.lock():
            set_workspace_file(store.workspace, path, content, None)

    def commit(
        self, current_content: Callable[[str], bytes | None] | None = None
    ) -> CheckpointInfo | None:
        """Record post-images and push the plan on the undo stack (clears the redo stack).

        Returns None, and records nothing, when no file differs from its pre-image.
        `current_content` reads a path's post-plan content (default: the disk).
        """
        self._check_open()
        store = self._store
        with store.lock():
            records, posts = self._post_records(current_content)
            if not records:
                store.forget_plan(self.id)
                self._close()
                return None
            entry = self._write_entry(records, posts)
            kill_point("commit:objects-written")
            store.objects.update_refs(set_to={entry.id: entry.commit})
            kill_point("commit:ref-written")
            state = store.state()
            entries = (*state.entries[: state.applied], entry)
            dropped = state.entries[state.applied :] + entries[: -store.keep]
            entries = entries[-store.keep :]
            store.save_state(StoreState(entries=entries, applied=len(entries)))
            kill_point("commit:state-written")
            if dropped:
                store.objects.update_refs(delete=[old.id for old in dropped])
            for pack in {old.pack for old in dropped} - {kept.pack for kept in entries}:
                store.objects.delete_pack(pack)
            store.forget_plan(self.id)
            self._close()
        return CheckpointInfo(
            id=entry.id,
            time=entry.time,
            description=entry.description,
            session_id=entry.session_id,
            files=tuple(record.path for record in entry.files),
            state="applied",
        )

    def rollback(self, only: Collection[str] | None = None) -> Transition:
        """Restore the touched paths' pre-images on disk (only the paths in `only` when given:
        the ones the plan wrote; a planned file not written yet is left alone); the plan
        leaves no undo entry."""
        self._check_open()
        store = self._store
        changes: list[FileState] = []
        targets: list[Target] = []
        with store.lock():
            for pre in self._plan.files:
                if only is not None and pre.path not in only:
                    continue
                content, executable = read_workspace_file(store.workspace, pre.path)
                before = None if content is None else blob_sha(content)
                data = store.read_pre(pre)
                changes.append(FileState(pre.path, data, pre.executable))
                if before == pre.sha and (content is None or executable == pre.executable):
                    continue
                targets.append(
                    Target(path=pre.path, before=before, after=pre.sha, executable=pre.executable)
                )
            journal = ApplyJournal(
                kind="rollback",
                checkpoint_id=self.id,
                targets=tuple(targets),
                missing_dirs=self._plan.pre_missing_dirs,
                drop_plan=self.id,
            )
            apply_journal(store, journal)
            self._close()
        return Transition(self.id, tuple(changes), "rollback")

    def __enter__(self) -> PlanRecorder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Leaving a `with` block commits; leaving it by an exception rolls back."""
        if self.closed:
            return
        if exc_type is None:
            self.commit()
        else:
            self.rollback()

    # -- internals ---------------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._lock_fd is None:
            raise PlanClosed(f"plan {self.id} was already committed or rolled back")

    def _close(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def _post_records(
        self, current_content: Callable[[str], bytes | None] | None
    ) -> tuple[list[FileRecord], dict[str, bytes]]:
        """Records of the paths that changed, and the post-image contents by blob id."""
        store = self._store
        records: list[FileRecord] = []
        posts: dict[str, bytes] = {}
        for pre in self._plan.files:
            store.policy.check_file(pre.path)
            content, executable = read_workspace_file(store.workspace, pre.path)
            if current_content is not None:
                content = current_content(pre.path)
                executable = executable if content is not None else False
            if content is not None:
                store.policy.check_size(pre.path, len(content))
            post = None if content is None else blob_sha(content)
            if post == pre.sha and (content is None or executable == pre.executable):
                continue
            if post is not None and content is not None:
                posts[post] = content
            records.append(
                FileRecord(
                    path=pre.path,
                    pre=pre.sha,
                    post=post,
                    pre_exec=pre.executable,
                    post_exec=executable and content is not None,
                )
            )
        return records, posts

    def _write_entry(self, records: list[FileRecord], posts: dict[str, bytes]) -> Entry:
        """Write the entry's pack: pre blobs (loose until now), post blobs, trees, commit."""
        store = self._store
        now = time.time()
        items = [TreeItem(f"pre/{r.path}", r.pre, r.pre_exec) for r in records if r.pre] + [
            TreeItem(f"post/{r.path}", r.post, r.post_exec) for r in records if r.post
        ]
        tree, trees = tree_objects(items)
        plan = self._plan
        message = f"{plan.description}\n\ncheckpoint: {plan.id}\nsession: {plan.session_id}\n"
        message += "".join(f"file: {r.path}\n" for r in records)
        commit = commit_object(tree, message.rstrip("\n"), now)
        blobs: list[tuple[bytes, bytes]] = []
        changed = {record.path for record in records}
        for image in self._plan.files:
            content = store.read_pre(image) if image.path in changed else None
            if content is not None:
                blobs.append((b"blob", content))
        blobs += [(b"blob", content) for content in posts.values()]
        pack = store.objects.write_pack([*blobs, *trees, commit])
        post_missing: set[str] = set()
        for record in records:
            post_missing.update(store.policy.missing_dirs(record.path))
        return Entry(
            id=self.id,
            commit=object_id(*commit),
            pack=pack,
            time=now,
            description=self._plan.description,
            session_id=self._plan.session_id,
            files=tuple(records),
            pre_missing_dirs=self._plan.pre_missing_dirs,
            post_missing_dirs=tuple(sorted(post_missing)),
        )
