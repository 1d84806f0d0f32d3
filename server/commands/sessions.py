"""`agent-ls sessions --workspace DIR [--json] [--delete ID]`: the stored conversations of a
workspace (the ones `agent/chat` and `agent-ls acp` continue by id, also after a restart).
Exit codes (server/commands/errors.py): 0 listed / deleted, 1 unknown id, 2 no such folder."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from server.commands.errors import check_workspace, failure
from server.features.sessions import session_entry
from server.history import SessionStore, UnknownSession
from server.protocol import make_converter


def register(sub: Any) -> None:
    parser = sub.add_parser("sessions", help="list (or delete) the stored chat sessions")
    parser.add_argument("--workspace", default=".", metavar="DIR", help="workspace folder")
    parser.add_argument("--json", action="store_true", help="print a JSON array")
    parser.add_argument("--delete", metavar="ID", help="delete this session")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    workspace = Path(args.workspace)
    if not check_workspace(workspace):
        return 2
    store = SessionStore(workspace.resolve())
    if args.delete:
        try:
            store.delete(args.delete)
        except UnknownSession as exc:
            return failure(str(exc))
        if not args.json:
            print(f"deleted session {args.delete}")
    entries = [session_entry(info) for info in store.list()]
    if args.json:
        print(json.dumps(make_converter().unstructure(entries), ensure_ascii=False))
    elif not args.delete:
        if not entries:
            print("no sessions")
        for entry in entries:
            if entry.corrupt is not None:
                print(f"{entry.id}  {entry.updated}  corrupt: {entry.corrupt}")
                continue
            print(f"{entry.id}  {entry.updated}  {entry.turns} turn(s)  {entry.title}")
    return 0
