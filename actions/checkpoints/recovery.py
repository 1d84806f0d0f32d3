"""Write-ahead journal execution and crash recovery of the checkpoint store.

An undo / redo / rollback first writes `journal.json` (every target path with its blob id
before and after), then the workspace files, then the history, then deletes the journal.
Opening the store (`recover`) rolls a leftover journal forward, leaving alone any file
that someone changed since (reported), rolls back plans whose process died before
commit, and drops refs, packs and plan files that no entry or running plan uses.
"""

from __future__ import annotations

from actions.checkpoints.journal import (
    ApplyJournal,
    PlanJournal,
    PreImage,
    StoreFiles,
    Target,
    kill_point,
    load_model,
    owner_alive,
    remove_empty_dirs,
    save_model,
    set_workspace_file,
)
from actions.checkpoints.types import CheckpointError, RecoveryReport


def apply_journal(store: StoreFiles, journal: ApplyJournal) -> None:
    """Check the blobs exist, write the journal, then run it."""
    blobs = _blob_reader(store, journal)
    missing = [t.after for t in journal.targets if t.after and not blobs.has(t.after)]
    if missing:
        raise CheckpointError(f"checkpoint store is missing objects {missing}: cannot apply")
    save_model(store.store_dir / "journal.json", journal)
    kill_point("apply:journal-written")
    run_journal(store, journal, recovering=False)


def _blob_reader(store: StoreFiles, journal: ApplyJournal) -> _Blobs:
    if journal.pack is not None:
        return _Blobs(store, journal.pack, {})
    plan = load_model(store.plan_paths(journal.drop_plan or "")[0], PlanJournal)
    images = {} if plan is None else {i.sha: i for i in plan.files if i.sha}
    return _Blobs(store, None, images)


def run_journal(store: StoreFiles, journal: ApplyJournal, *, recovering: bool) -> list[str]:
    """Bring every target to its `after` state, then the history; idempotent."""
    skipped: list[str] = []
    blobs = _blob_reader(store, journal)
    for number, target in enumerate(journal.targets):
        if recovering:
            current = store.disk_sha(target.path)
            if current == target.after:
                continue
            if current != target.before:  # someone changed it since: leave it alone
                skipped.append(target.path)
                continue
        data = None if target.after is None else blobs.read(target.after)
        set_workspace_file(store.workspace, target.path, data, target.executable)
        if number == 0:
            kill_point("apply:file-written")
    remove_empty_dirs(store.workspace, journal.missing_dirs)
    kill_point("apply:files-written")
    if journal.applied_after is not None:
        state = store.state()
        store.save_state(state.model_copy(update={"applied": journal.applied_after}))
        kill_point("apply:state-written")
    if journal.drop_plan is not None:
        store.forget_plan(journal.drop_plan)
    (store.store_dir / "journal.json").unlink(missing_ok=True)
    return skipped


def recover(store: StoreFiles) -> RecoveryReport:
    """Finish an interrupted undo/redo/rollback, roll back dead plans, drop orphans."""
    forward: list[str] = []
    skipped: list[str] = []
    journal = load_model(store.store_dir / "journal.json", ApplyJournal)
    if journal is not None:
        skipped += run_journal(store, journal, recovering=True)
        forward.append(journal.checkpoint_id)
    back = _recover_plans(store)
    drop_orphans(store)
    return RecoveryReport(tuple(forward), tuple(back), tuple(skipped))


def _recover_plans(store: StoreFiles) -> list[str]:
    """Roll back plans whose process died before commit (an aborted plan leaves nothing)."""
    done = {entry.id for entry in store.state().entries}
    rolled_back: list[str] = []
    for journal_path in sorted(store.plans_dir.glob("*.json")):
        plan_id = journal_path.stem
        if owner_alive(store.plan_paths(plan_id)[1]):
            continue
        plan = load_model(journal_path, PlanJournal)
        if plan is None or plan_id in done:
            store.forget_plan(plan_id)
            continue
        targets = tuple(
            Target(
                path=pre.path,
                before=store.disk_sha(pre.path),
                after=pre.sha,
                executable=pre.executable,
            )
            for pre in plan.files
        )
        rollback = ApplyJournal(
            kind="rollback",
            checkpoint_id=plan_id,
            targets=targets,
            missing_dirs=plan.pre_missing_dirs,
            drop_plan=plan_id,
        )
        apply_journal(store, rollback)
        rolled_back.append(plan_id)
    return rolled_back


def drop_orphans(store: StoreFiles) -> None:
    """Refs, packs and pre-image files left by a crash (e.g. after recording, before GC)."""
    state = store.state()
    orphans = set(store.objects.refs()) - {entry.id for entry in state.entries}
    if orphans:
        store.objects.update_refs(delete=orphans)
    for pack in store.objects.pack_names() - {entry.pack for entry in state.entries}:
        store.objects.delete_pack(pack)
    for leftover in [*store.plans_dir.glob("*.pack"), *store.plans_dir.glob("*.lock")]:
        journal_path, lock_path = store.plan_paths(leftover.name.split(".")[0])
        if not journal_path.exists() and not owner_alive(lock_path):
            leftover.unlink(missing_ok=True)


class _Blobs:
    """Where the `after` blobs of a journal are: an entry's pack or a plan's pre-images."""

    def __init__(self, store: StoreFiles, pack: str | None, images: dict[str, PreImage]) -> None:
        self._store = store
        self._pack = pack
        self._images = images

    def has(self, sha: str) -> bool:
        if self._pack is not None:
            return self._store.objects.has(sha, self._pack)
        image = self._images.get(sha)
        return image is not None and (self._store.plans_dir / str(image.batch)).is_file()

    def read(self, sha: str) -> bytes:
        if self._pack is not None:
            return self._store.objects.read_blob(sha, self._pack)
        content = self._store.read_pre(self._images[sha])
        if content is None:
            raise CheckpointError(f"pre-image {sha} is missing")
        return content
