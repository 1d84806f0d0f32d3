"""Public values and errors of the checkpoint store (see `actions.checkpoints`).

The error classes derive from `CheckpointError` (an `ActionError`, with a `kind`) so a
caller can catch the family; the LSP handlers turn them into JSON-RPC errors, the CLI into
a message and exit code 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from actions.errors import ActionError

TransitionKind = Literal["undo", "redo", "rollback"]


@dataclass(frozen=True)
class FileState:
    """The content of one workspace file; `content is None` means the file is absent."""

    path: str
    content: bytes | None
    executable: bool = False


@dataclass(frozen=True)
class Transition:
    """A move of the workspace to the target state of each path a plan touched."""

    checkpoint_id: str
    changes: tuple[FileState, ...]
    kind: TransitionKind = "undo"
    # Paths whose current content differed from the expected one (only with force=True).
    overridden: tuple[str, ...] = ()


@dataclass(frozen=True)
class CheckpointInfo:
    """One entry of the undo history, as listed to the user."""

    id: str
    time: float  # seconds since the epoch
    description: str
    session_id: str
    files: tuple[str, ...]
    state: Literal["applied", "undone"]

    @property
    def iso_time(self) -> str:
        return datetime.fromtimestamp(self.time, UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class RecoveryReport:
    """What opening the store repaired after a crash (empty when nothing was pending)."""

    rolled_forward: tuple[str, ...] = ()  # undo/redo/rollback ids completed
    rolled_back_plans: tuple[str, ...] = ()  # unfinished plans restored to their pre-image
    skipped_paths: tuple[str, ...] = ()  # left alone: changed by someone since the crash

    def __bool__(self) -> bool:
        return bool(self.rolled_forward or self.rolled_back_plans or self.skipped_paths)


class CheckpointError(ActionError):
    """Base of every error raised by the checkpoint store."""

    kind = "checkpoint_error"


class CheckpointConflict(CheckpointError):
    """The user changed files since the checkpoint; undo/redo would clobber their work."""

    kind = "checkpoint_conflict"

    def __init__(
        self, action: str, paths: list[str], places: Mapping[str, str] | None = None
    ) -> None:
        self.paths = paths
        self.places = dict(places or {})
        names = ", ".join(
            f"{path} ({self.places[path]})" if path in self.places else path for path in paths
        )
        since = "applied" if action == "undo" else "undone"
        super().__init__(
            f"cannot {action}: changed since the plan was {since}: {names} "
            f"(use force to {action} anyway and lose those changes)"
        )


class CheckpointRefused(CheckpointError):
    """A path the store cannot snapshot (ignored, too large, outside the workspace...)."""

    kind = "checkpoint_refused"

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class NothingToUndo(CheckpointError):
    """The undo stack is empty."""

    kind = "nothing_to_undo"

    def __init__(self) -> None:
        super().__init__("nothing to undo")


class NothingToRedo(CheckpointError):
    """The redo stack is empty (a new plan clears it)."""

    kind = "nothing_to_redo"

    def __init__(self) -> None:
        super().__init__("nothing to redo")


class StaleTransition(CheckpointError):
    """The history moved (another process or session) since the transition was planned."""

    kind = "stale_transition"


class PlanClosed(CheckpointError):
    """The plan recorder was already committed or rolled back."""

    kind = "plan_closed"
