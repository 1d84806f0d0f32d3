"""Git-backed checkpoints: exact undo / redo of applied plans, never touching the user's git.

Each workspace has a shadow store outside it (`$XDG_CACHE_HOME/agent-ls/checkpoints/<hash>`,
or `$AGENT_LS_CHECKPOINT_DIR/<hash>`, or an explicit `store_dir`): a bare git directory
holding, per applied plan, one pack with the pre- and post-image blobs of just the paths it
touched, a small tree `pre/… post/…` and a commit, named by `refs/checkpoints/<id>`.
Objects are written in-process (objects.py, pack.py), so a checkpoint costs O(files
touched) and no git process; the user's `.git`, HEAD, index, refs and stash are never
written (their ignore rules are only read).

Usage (the plan executor / LSP handlers):

    store = CheckpointStore(root)                  # opening recovers an interrupted operation
    plan = store.begin_plan(description=..., session_id=..., paths=[...])
    plan.write("src/a.py", b"...")                 # or: plan.touch(p) then write p yourself
    plan.commit()                                  # or plan.rollback() on abort
    store.undo(); store.redo(); store.list()

Every mutation runs under an flock of the store; undo / redo / rollback go through a
write-ahead journal so a crash at any point leaves the workspace fully before or after.

Modules (each imports only those below it):
    store     CheckpointStore: undo, redo, list, prune; opening recovers
    recorder  PlanRecorder: pre-images while a plan runs, commit / rollback
    recovery  the write-ahead journal: apply, roll forward / back after a crash
    journal   records of the store's files, locks, `StoreFiles` (the narrow interface
              recorder and recovery use instead of the store itself)
    paths     which workspace paths may be snapshotted (confinement, size, ignore rules)
    objects   the git object database (packs, refs) written in-process
    pack      git pack / idx encoding
    types     public values and errors
The user's ignore rules and the git environment come from `actions.files` (ignore, gitenv).
"""

from actions.checkpoints.recorder import PlanRecorder
from actions.checkpoints.store import BufferReader, CheckpointStore
from actions.checkpoints.types import (
    CheckpointConflict,
    CheckpointError,
    CheckpointInfo,
    CheckpointRefused,
    FileState,
    NothingToRedo,
    NothingToUndo,
    PlanClosed,
    RecoveryReport,
    StaleTransition,
    Transition,
    TransitionKind,
)
from actions.private import STORE_ENV, default_store_dir

__all__ = [
    "STORE_ENV",
    "BufferReader",
    "CheckpointConflict",
    "CheckpointError",
    "CheckpointInfo",
    "CheckpointRefused",
    "CheckpointStore",
    "FileState",
    "NothingToRedo",
    "NothingToUndo",
    "PlanClosed",
    "PlanRecorder",
    "RecoveryReport",
    "StaleTransition",
    "Transition",
    "TransitionKind",
    "default_store_dir",
]
