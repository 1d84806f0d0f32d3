"""`initialize`, `initialized`, `workspace/didChangeConfiguration`: the settings layers.

initializationOptions are read at initialize; the `agentLs` section is pulled with
`workspace/configuration` after `initialized` and after every change notification.
Chat requests wait for a pending refresh, so a change applies to the next request.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from lsprotocol import types

from server.capabilities import ResolvedClientCapabilities
from server.lsp import AgentLanguageServer
from server.protocol import CONFIG_SECTION

log = logging.getLogger(__name__)


def register(server: AgentLanguageServer) -> None:
    server.feature(types.INITIALIZE)(on_initialize)
    server.feature(types.INITIALIZED)(on_initialized)
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(on_did_change_configuration)


def on_initialize(ls: AgentLanguageServer, params: types.InitializeParams) -> None:
    ls.state.client = ResolvedClientCapabilities.from_lsp(params.capabilities)
    options = params.initialization_options
    if isinstance(options, dict):
        section = options.get(CONFIG_SECTION, options)
        ls.state.init_options = dict(section) if isinstance(section, dict) else {}
    _, problems = ls.state.config()
    ls.show_problems(ls.startup_problems + problems)


def on_initialized(ls: AgentLanguageServer, params: types.InitializedParams) -> None:
    ls.config_refresh = asyncio.ensure_future(refresh(ls, None))
    for start in ls.after_initialized:  # e.g. the index (it waits for the settings pulled)
        start(ls)


def on_did_change_configuration(
    ls: AgentLanguageServer, params: types.DidChangeConfigurationParams
) -> None:
    pushed = params.settings.get(CONFIG_SECTION) if isinstance(params.settings, dict) else None
    ls.config_refresh = asyncio.ensure_future(refresh(ls, pushed))


async def refresh(ls: AgentLanguageServer, pushed: Any) -> None:
    """Replace the client settings layer (pushed, or pulled from the client)."""
    settings = pushed
    if settings is None:
        try:
            result = await asyncio.wait_for(
                ls.workspace_configuration_async(
                    types.ConfigurationParams(
                        items=[types.ConfigurationItem(section=CONFIG_SECTION)]
                    )
                ),
                timeout=5,
            )
            settings = result[0] if result else None
        except Exception as exc:  # a client without workspace/configuration: keep the rest
            log.info("workspace/configuration unavailable: %s", exc)
            ls.state.mcp.sync(ls.state.config()[0].mcpServers)
            return
    ls.state.client_settings = dict(settings) if isinstance(settings, dict) else {}
    config, problems = ls.state.config()
    ls.show_problems(problems)
    ls.state.mcp.sync(config.mcpServers)  # started in the background, before any turn


async def settled(ls: AgentLanguageServer) -> None:
    """Wait (briefly) for a configuration refresh in flight."""
    task = ls.config_refresh
    if task is not None and not task.done():
        await asyncio.wait({task}, timeout=5)
