"""Build the agent for one workspace folder: confinement, tools, checkpoints, applier."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from actions.apply import Applier
from actions.checkpoints import CheckpointStore
from actions.paths import Workspace
from actions.plans import PlanFiles
from actions.tools import ToolRegistry, default_registry
from actions.tools.adapters import tool_adapter
from server.agent import Agent
from server.config import Config
from server.providers.base import Provider


def open_store(root: Path, secret_allow: Sequence[str] = ()) -> CheckpointStore:
    """The checkpoint store of `root` (outside the workspace; opening it recovers a crash)."""
    return CheckpointStore(root, secret_allow=secret_allow)


def build_agent(
    config: Config, provider: Provider, root: Path | None, applier: Applier | None
) -> Agent:
    """The agent for `root`; without a folder the model can only talk (no tools, no edits)."""
    # The embedded model's decoding is constrained to one JSON document: no fences there.
    adapter = tool_adapter(config.toolProtocol, fenced_bodies=provider.name != "local")
    budget = history_chars(config)
    if root is None or applier is None:
        return Agent(
            provider,
            ToolRegistry(),
            None,
            "(no folder)",
            adapter,
            config.maxTurns,
            history_chars=budget,
        )
    store = open_store(root, config.allowSecretFiles)
    workspace = Workspace(
        root, extra_denied=[store.store_dir], secret_allow=config.allowSecretFiles
    )
    plans = PlanFiles(workspace, store, applier)
    registry = default_registry(workspace)
    return Agent(
        provider, registry, plans, workspace.name, adapter, config.maxTurns, history_chars=budget
    )


def history_chars(config: Config) -> int:
    """Characters of earlier conversation a turn may send: the model's context window less
    the reply's share, at about 4 characters a token (never below a few exchanges)."""
    return max(8000, (config.contextSize - config.maxTokens) * 4)
