"""`agent-ls doctor`: which provider would answer, why, and whether it does.

Reads the same environment and flags as `agent-ls chat`, resolves the provider (settings >
environment > detected local servers > embedded model) and sends it a tiny request; lists
the rules files `agent-ls chat` would read from here (the current directory counts).
Exit status 0 when the provider answers, 1 otherwise, 2 for a usage error
(server/commands/errors.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

import attrs

from actions.paths import Workspace
from server.commands.chat import add_mcp_config, cli_setup, current_dir
from server.commands.errors import FAILED, USAGE
from server.commands.index import index_report, render_index
from server.commands.mcp import render as render_mcp
from server.commands.mcp import started
from server.config import Config
from server.index_summaries import LOCAL_NOT_ASKED, SUMMARIES_OFF
from server.protocol import IndexReport, StatusReport, SummaryReport, from_wire, to_wire
from server.providers import PROVIDERS, make_provider
from server.providers.base import Provider
from server.resolve import provider_status
from server.rules import read_rules, render_rules, rules_report
from server.turns.commands import commands_report, render_commands


def register(sub: Any) -> None:
    parser = sub.add_parser("doctor", help="show which provider answers, why, and test it")
    parser.add_argument("--workspace", default=".", help="workspace folder (default: .)")
    parser.add_argument("--provider", choices=PROVIDERS, help=f"provider ({', '.join(PROVIDERS)})")
    parser.add_argument("--base-url", dest="baseUrl", help="provider base URL")
    parser.add_argument("--model", help="model name")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--no-check", action="store_true", help="do not send a test request")
    add_mcp_config(parser)
    parser.set_defaults(func=run)


def render(report: StatusReport) -> str:
    """The report for a terminal, one fact per line."""
    lines = [f"provider:  {report.provider or '(none)'}"]
    if report.model:
        lines.append(f"model:     {report.model}")
    if report.base_url:
        lines.append(f"base URL:  {report.base_url}")
    lines.append(f"why:       {report.reason}")
    if report.reachable is None:
        lines.append("answers:   not checked")
    else:
        lines.append(f"answers:   {'yes' if report.reachable else 'NO'} ({report.detail})")
    lines.append("looked at:")
    lines += [f"  {'*' if c.chosen else '-'} {c.source}: {c.detail}" for c in report.candidates]
    return "\n".join(lines)


def summaries(config: Config, report: StatusReport) -> SummaryReport:
    """Who the server has write the index's table / long-code summaries, for this setup."""
    if not config.indexSummaries:
        return SummaryReport(source="fallback", reason=SUMMARIES_OFF)
    chosen = next((c for c in report.candidates if c.chosen), None)
    if chosen is None or not report.provider:
        return SummaryReport(source="fallback", reason="no provider is configured or found")
    if chosen.source == "local":
        return SummaryReport(source="fallback", reason=LOCAL_NOT_ASKED)
    where = f"{report.base_url}:" if report.base_url else ""  # as `agent-ls index` names it
    return SummaryReport(source="provider", model=f"{report.provider}:{where}{report.model or ''}")


def run(args: argparse.Namespace) -> int:
    setup = cli_setup(args)
    if setup is None:
        return USAGE
    root, config, explicit = setup

    def provider_for(chosen: Config) -> Provider:
        return make_provider(chosen, root)

    report = asyncio.run(
        provider_status(config, explicit, provider_for=provider_for, check=not args.no_check)
    )
    index = from_wire(index_report(root, config.indexUrl, config.index), IndexReport)
    report = attrs.evolve(report, index=attrs.evolve(index, summaries=summaries(config, report)))
    workspace = Workspace(root, secret_allow=config.allowSecretFiles)
    rules = asyncio.run(read_rules([workspace], current_dir(), report.provider))
    listed = rules_report(rules)
    commands = commands_report(config, report.provider)
    report = attrs.evolve(report, rules=listed, commands=commands)
    if config.mcpServers:  # each started, listed and stopped
        report = attrs.evolve(report, mcp=asyncio.run(started(config.mcpServers)))
    if args.json:
        print(json.dumps(to_wire(report), ensure_ascii=False))
    else:
        print(render(report))
        print(render_index(to_wire(report.index)))
        print(render_rules(listed))
        print(render_commands(commands))
        if report.mcp:
            print("mcp:")
            print("\n".join(f"  {line}" for s in report.mcp for line in render_mcp(s).splitlines()))
    return 0 if report.reachable or (args.no_check and report.provider) else FAILED
