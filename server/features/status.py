"""`agent/status`: which provider answers chat requests, why, and whether it answers now.

Params (optional): `{"check": false}` skips the test request (`reachable` is then null).
Result: `{provider, model, reason, reachable, detail, baseUrl, candidates, index}`, the same
facts `agent-ls doctor` prints; `index` is the retrieval index: `{state, backend, location,
documents: {pending, chunked, ready, failed}, chunks, failures: [{path, reason}], watching}`
(of the first folder); `folders`: every workspace folder `{name, path, applied, undone,
index}` (`name`: what paths are qualified by in a multi-root workspace, "" for one folder);
`rules`: the rules files a turn reads (`{limit, cut, files: [{path, shown, bytes, included,
cut, refused}]}`: the user's AGENTS.md and each folder's root one; server/rules.py).
`mcp`: the MCP servers `{name, transport, state, tools, error?, folder?, failures,
retryDelay?}`, the user's then each folder's (docs/mcp.md).
The test request goes through the server's cached provider, so a local model loaded for it
stays loaded for the chat that follows.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import attrs

from actions.paths import Workspace
from server.config import blocking_problem
from server.features.configuration import settled
from server.features.folders import open_workspace
from server.features.indexing import index_status
from server.lsp import AgentLanguageServer, RequestFailed
from server.protocol import AGENT_STATUS, FolderStatus, IndexReport, StatusReport, from_wire
from server.resolve import explicit_keys, provider_status
from server.rules import read_rules, rules_report
from server.state import PROVIDER_URL
from server.turns.commands import commands_report
from server.workspace import FolderUnavailable

log = logging.getLogger(__name__)


def register(server: AgentLanguageServer) -> None:
    server.feature(AGENT_STATUS)(status)


async def status(ls: AgentLanguageServer, params: Any) -> StatusReport:
    await settled(ls)
    config, problems = ls.state.config()
    problem = blocking_problem(problems, PROVIDER_URL)
    if problem is not None:  # a malformed baseUrl: nothing to resolve or ask
        raise RequestFailed(problem.message())
    explicit = explicit_keys(ls.state.init_options, ls.state.client_settings)
    check = not (isinstance(params, dict) and params.get("check") is False)
    report = await provider_status(config, explicit, provider_for=ls.state.provider, check=check)
    index = from_wire(await index_status(ls), IndexReport)
    mcp = ls.state.mcp_report()
    folders = await folder_statuses(ls)
    rules = rules_report(await read_rules(await workspaces(ls), None, report.provider))
    commands = commands_report(config, report.provider)
    return attrs.evolve(
        report, index=index, folders=folders, rules=rules, commands=commands, mcp=mcp or None
    )


async def workspaces(ls: AgentLanguageServer) -> list[Workspace]:
    """The workspace folders as a turn confines them (none when they cannot be opened)."""
    try:
        opened = await open_workspace(ls)
    except FolderUnavailable:
        return []  # folder_statuses logged why
    return [root.workspace for root in opened.roots.roots] if opened is not None else []


async def folder_statuses(ls: AgentLanguageServer) -> list[FolderStatus] | None:
    """Each workspace folder: its name, undo history and index (None without a folder)."""
    try:
        opened = await open_workspace(ls)
    except FolderUnavailable as error:
        log.warning("%s", error)
        return None
    if opened is None:
        return None
    found: list[FolderStatus] = []
    for root, folder in zip(opened.roots.roots, opened.folders, strict=True):
        history = await asyncio.to_thread(folder.store.list)
        applied = sum(1 for info in history if info.state == "applied")
        index = from_wire(await index_status(ls, folder.root), IndexReport)
        found.append(
            FolderStatus(
                name=root.name,
                path=str(folder.root),
                applied=applied,
                undone=len(history) - applied,
                index=index,
            )
        )
    return found
