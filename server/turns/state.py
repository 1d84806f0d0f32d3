"""The state of a turn as a constrained provider needs it (see providers/constraints.py)."""

from __future__ import annotations

from collections.abc import Sequence

from actions.plans import PlanFiles, PlanRun
from actions.roots import Root
from actions.tools import ToolRegistry
from actions.tools.list_files import ListFiles
from server.providers.constraints import TurnState, file_state

# More files than this and paths are only checked for their characters (grammar size).
MAX_STATE_FILES = 300


async def turn_state(
    registry: ToolRegistry,
    plans: PlanFiles | None,
    plan: PlanRun | None,
    tools_called: Sequence[str] = (),
) -> TurnState:
    """Tools, the workspace's files and the plan's remaining files, as they are now."""
    tools = tuple(registry.manifests())
    called = tuple(tools_called)
    if plans is None:
        return TurnState(tools, None, None, can_edit=False, tools_called=called)
    roots = plans.roots.roots if plans.roots is not None else (Root("", plans.workspace),)
    files: list[str] = []
    complete = True
    for root in roots:  # in a multi-root workspace, paths are qualified by folder name
        listing = await ListFiles(root.workspace).files()
        complete = complete and listing.complete
        shown = [path for path in listing.files if not root.workspace.is_secret(path)]
        files += [f"{root.name}/{path}" if root.name else path for path in shown]
    remaining = None
    if plan is not None and not plan.recorder.closed:
        remaining = tuple(plan.remaining)
    return TurnState(
        tools,
        file_state(files, MAX_STATE_FILES) if complete else None,
        remaining,
        tools_called=called,
    )
