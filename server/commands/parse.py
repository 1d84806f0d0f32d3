"""`agent-ls parse [FILE|-] [--snippets]`: a model reply -> blocks, one JSON object per line.

Default (blocks): ``{"type": "text"|"action"|"tool_call", "start", "end", "text"?,
"document"?, "name"?, "args"?, "repaired", "truncated", "suspect"}``; ``text`` for text
blocks, ``document`` for actions, ``name``/``args`` for tool calls. Offsets are code points.

``--snippets``: the snippet layer, every JSON value found: ``{"type": "snippet", "origin":
"bare_json"|"fenced_json"|"tool_call", "start", "end", "value_start", "value_end", "value",
"complete", "repaired", "truncated", "suspect", "fixes"}``.

Exit 0; 2 if the file cannot be read (server/commands/errors.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from parsing import Snippet, find_snippets, parse_reply
from server.commands.errors import unreadable
from server.protocol import block_record, to_wire


def register(sub: Any) -> None:
    parser = sub.add_parser("parse", help="split a model reply into text/action/tool-call blocks")
    parser.add_argument("file", nargs="?", default="-", help="reply file, or - for stdin")
    parser.add_argument(
        "--snippets", action="store_true", help="print every JSON value found instead"
    )
    parser.set_defaults(func=run)


def snippet_json(snippet: Snippet) -> dict[str, Any]:
    """The JSON-lines record of one snippet."""
    return {
        "type": "snippet",
        "origin": snippet.origin,
        "start": snippet.start,
        "end": snippet.end,
        "value_start": snippet.value_start,
        "value_end": snippet.value_end,
        "value": snippet.value,
        "complete": snippet.complete,
        "repaired": snippet.repaired,
        "truncated": snippet.truncated,
        "suspect": snippet.suspect,
        "fixes": sorted(snippet.fixes),
    }


def _read(name: str) -> str:
    if name == "-":
        return sys.stdin.buffer.read().decode("utf-8", errors="replace")
    return Path(name).read_bytes().decode("utf-8", errors="replace")


def run(args: argparse.Namespace) -> int:
    try:
        text = _read(args.file)
    except OSError as exc:
        return unreadable(args.file, exc)
    if args.snippets:
        records = [snippet_json(s) for s in find_snippets(text)]
    else:
        records = [to_wire(block_record(b)) for b in parse_reply(text)]
    out = sys.stdout
    for record in records:
        line = json.dumps(record, ensure_ascii=False)
        try:
            out.write(line + "\n")
        except UnicodeEncodeError:  # a console that is not UTF-8, or a lone surrogate
            out.write(json.dumps(record) + "\n")
    out.flush()
    return 0
