"""`initialize`, `initialized`, `workspace/didChangeConfiguration`: the settings layers.

initializationOptions are read at initialize; the `agentLs` section is pulled with
`workspace/configuration` after `initialized` and after every change notification.
Chat requests wait for a pending refresh, so a change applies to the next request.
Each workspace folder's `agentLs.mcpServers` is pulled too (`scopeUri`: the folder): the
entries that are its own run as the folder's MCP servers (server/mcp/folder.py).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from lsprotocol import types

from server.capabilities import ResolvedClientCapabilities
from server.config import ConfigProblem
from server.lsp import AgentLanguageServer
from server.mcp.folder import folder_only
from server.mcp_config import McpServerSpec, parse_servers
from server.protocol import CONFIG_SECTION

MCP_SECTION = f"{CONFIG_SECTION}.mcpServers"

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
    await folder_servers(ls, config.mcpServers)


async def folder_servers(ls: AgentLanguageServer, user: tuple[McpServerSpec, ...]) -> None:
    """Each folder's own MCP servers, from its `agentLs.mcpServers` (a bad value is a setting
    problem naming the folder; its servers stay as they were)."""
    roots = ls.roots()
    if not roots or not ls.state.client.configuration:
        return
    items = [types.ConfigurationItem(scope_uri=r.as_uri(), section=MCP_SECTION) for r in roots]
    try:
        values = await asyncio.wait_for(
            ls.workspace_configuration_async(types.ConfigurationParams(items=items)), timeout=5
        )
    except Exception as exc:  # a client without workspace/configuration: no folder's own
        log.info("workspace/configuration of the folders unavailable: %s", exc)
        return
    problems = []
    for root, value in zip(roots, values or [], strict=False):
        try:
            specs = parse_servers(value) if value is not None else ()
        except ValueError as error:
            problems.append(ConfigProblem("mcpServers", str(error), value, f"folder {root}"))
            continue
        ls.state.folder(root).mcp.settings.sync(folder_only(specs, user))
    ls.show_problems(problems)


async def settled(ls: AgentLanguageServer) -> None:
    """Wait (briefly) for a configuration refresh in flight."""
    task = ls.config_refresh
    if task is not None and not task.done():
        await asyncio.wait({task}, timeout=5)
