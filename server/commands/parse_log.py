"""`agent-ls parse-log [FILE|-] [--strict]`: a CLI agent's streaming-JSON log -> result record.

Prints the result record as JSON on stdout (exit 0). A parse failure prints
``agent-ls: <error code>: <message>`` on stderr (exit 1); an unreadable file or a bad
AGENT_LS_PARSER_* variable exits 2. Lenient-mode warnings go to stderr as
``agent-ls: warning: ...`` lines.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from parsing.result_log import (
    ResultLogConfig,
    ResultLogConfigError,
    ResultLogError,
    parse_result_log,
)
from server.commands.errors import failure, unreadable, usage_error


def register(sub: Any) -> None:
    parser = sub.add_parser("parse-log", help="parse a CLI agent's stream-json log into its result")
    parser.add_argument("file", nargs="?", default="-", help="log file, or - for stdin (default)")
    parser.add_argument(
        "--strict", action="store_true", help="require every result field, correctly typed"
    )
    parser.set_defaults(func=run)


def _read(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    return Path(name).read_text(encoding="utf-8", errors="replace")


def run(args: argparse.Namespace) -> int:
    try:
        config = ResultLogConfig.from_env()
        text = _read(args.file)
    except ResultLogConfigError as exc:
        return usage_error(str(exc))
    except OSError as exc:
        return unreadable(args.file, exc)
    if args.strict:
        config = dataclasses.replace(config, strict=True)
    try:
        record = parse_result_log(text, config)
    except ResultLogError as exc:
        return failure(f"{exc.code.value}: {exc.message}")
    for warning in record.warnings:
        print(f"agent-ls: warning: {warning}", file=sys.stderr)
    print(json.dumps(record.to_json(), ensure_ascii=False))
    return 0
