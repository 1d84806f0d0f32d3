"""The project's rules files for a turn, `agent/status` and `agent-ls doctor` (the reading
itself: `actions/rules.py`).

Where the user is: the chat's editor context (`agent/chat` `context.uri`), else what the
front end says (ACP: the first file the prompt attached; CLI: the current directory).
The embedded `local` model gets the rules capped at `LOCAL_RULES_LIMIT`: its window is the
`contextSize` of the process (8192 tokens by default) and every token of prompt costs CPU
time on each request; 32 KB of rules (~8k tokens) would fill it before the conversation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from pygls.uris import to_fs_path

from actions.paths import Workspace
from actions.rules import RULES_LIMIT, ProjectRules, load_rules, user_rules_path
from server.protocol import ChatContext, RulesFileReport, RulesReport

LOCAL_RULES_LIMIT = 4 * 1024


def rules_limit(provider_name: str | None) -> int:
    """The cap of the rules files for the provider answering (lower for the embedded one)."""
    return LOCAL_RULES_LIMIT if provider_name == "local" else RULES_LIMIT


def context_path(context: ChatContext | None) -> Path | None:
    """The file the editor's chat context names (None: none, or not a file URI)."""
    if context is None or not context.uri.startswith("file:"):
        return None
    path = to_fs_path(context.uri)
    return Path(path) if path else None


async def read_rules(
    workspaces: Sequence[Workspace], where: Path | None, provider_name: str | None
) -> ProjectRules:
    """The rules files in use (read in a worker thread: stats and bounded reads)."""
    return await asyncio.to_thread(
        load_rules,
        workspaces,
        where,
        user_file=user_rules_path(),
        limit=rules_limit(provider_name),
    )


def rules_report(rules: ProjectRules) -> RulesReport:
    """The rules files as `agent/status` and `agent-ls doctor --json` list them."""
    return RulesReport(
        limit=rules.limit,
        cut=rules.cut,
        files=[
            RulesFileReport(
                path=str(file.path),
                shown=file.shown,
                bytes=file.size,
                included=file.included,
                cut=file.cut,
                refused=file.refused or None,
            )
            for file in rules.files
        ],
    )


def render_rules(report: RulesReport) -> str:
    """The rules files for a terminal (`agent-ls doctor`), one per line."""
    if not report.files:
        return "rules:     none (no AGENTS.md or CLAUDE.md)"
    lines = [f"rules:     {len(report.files)} file(s), capped at {report.limit} bytes in all"]
    for file in report.files:
        if file.refused:
            state = f"refused: {file.refused}"
        elif file.cut:
            state = f"CUT: {file.included} of {file.bytes} bytes included"
        else:
            state = f"{file.bytes} bytes"
        lines.append(f"  - {file.path} ({state})")
    return "\n".join(lines)
