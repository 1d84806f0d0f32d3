"""Messages shared by the CLI and the LSP, so one problem reads the same everywhere."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from server.config import ConfigProblem

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def workspace_problem(path: Path) -> str | None:
    """Why `path` cannot be a workspace, or None when it can."""
    if not path.exists():
        return f"workspace {path} does not exist"
    if not path.is_dir():
        return f"workspace {path} is not a folder"
    return None


def conflict_message(
    action: str, paths: list[str], force_hint: str, places: Mapping[str, str] | None = None
) -> str:
    """An undo/redo refused because files changed, each named with where it changed (on
    disk, in the editor); `force_hint` says how to force it."""
    since = "applied" if action == "undo" else "undone"
    where = places or {}
    names = ", ".join(f"{p} ({where[p]})" if p in where else p for p in paths)
    return (
        f"cannot {action}: changed since the plan was {since}: {names} "
        f"({force_hint} to {action} anyway and lose those changes)"
    )


def empty_message_problem(message: str) -> str | None:
    if not message.strip():
        return "the chat message is empty: say what you want done"
    return None


def setting_message(problem: ConfigProblem) -> str:
    """A setting problem as the CLI words it after `agent-ls: `: `setting agentLs.KEY (from
    ...): ...`."""
    return problem.message().removeprefix("agent-ls ")
