"""`agent-ls undo|redo|checkpoints --workspace DIR`: the plan history from a terminal.

They act on the same checkpoint store as the server (same folder, same lock), so they can
run while the editor is open. `undo` / `redo` print the files they wrote; a conflict (the
user changed a file since) names the files and exits 1 unless `--force`. `checkpoints`
lists the history newest first (`--json`: a JSON array). Exit codes (server/commands/errors.py):
0 done, 1 refused (nothing to undo/redo, conflict, history moved), 2 unusable workspace or store.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from actions.checkpoints import CheckpointError, CheckpointStore, Transition
from actions.checkpoints.types import CheckpointConflict
from server.commands.errors import USAGE, check_workspace, complain, failure
from server.protocol import checkpoint_entry, to_wire
from server.wording import conflict_message


def register(sub: Any) -> None:
    for name, help_text in (
        ("undo", "restore the files of the last applied plan to their state before it"),
        ("redo", "re-apply the last undone plan"),
    ):
        parser = sub.add_parser(name, help=help_text)
        _workspace_option(parser)
        parser.add_argument(
            "--force", action="store_true", help="overwrite files changed since (they are lost)"
        )
        parser.set_defaults(func=run_undo if name == "undo" else run_redo)
    parser = sub.add_parser("checkpoints", help="list applied and undone plans, newest first")
    _workspace_option(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON array")
    parser.set_defaults(func=run_list)


def _workspace_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workspace", default=".", metavar="DIR", help="workspace folder (default: current)"
    )


def _open(args: argparse.Namespace) -> CheckpointStore | None:
    if not check_workspace(Path(args.workspace)):
        return None
    try:
        store = CheckpointStore(Path(args.workspace))
    except (CheckpointError, OSError) as exc:
        complain(str(exc))
        return None
    report = store.last_recovery
    if report:
        complain(f"recovered an interrupted operation: {report}")
    return store


def _print_transition(verb: str, transition: Transition) -> None:
    print(f"{verb} {transition.checkpoint_id}: {len(transition.changes)} file(s)")
    for change in transition.changes:
        action = "deleted" if change.content is None else "wrote"
        print(f"  {action} {change.path}")
    for path in transition.overridden:
        print(f"  overwrote your changes to {path}", file=sys.stderr)


def _move(args: argparse.Namespace, kind: str) -> int:
    store = _open(args)
    if store is None:
        return USAGE
    try:
        if kind == "undo":
            transition = store.undo(force=args.force)
        else:
            transition = store.redo(force=args.force)
    except CheckpointConflict as exc:
        message = conflict_message(kind, exc.paths, "use --force", exc.places)
        return failure(f"{kind}: {message}")
    except CheckpointError as exc:
        return failure(f"{kind}: {exc}")
    _print_transition("undid" if kind == "undo" else "redid", transition)
    return 0


def run_undo(args: argparse.Namespace) -> int:
    return _move(args, "undo")


def run_redo(args: argparse.Namespace) -> int:
    return _move(args, "redo")


def run_list(args: argparse.Namespace) -> int:
    store = _open(args)
    if store is None:
        return USAGE
    infos = store.list()
    if args.json:
        print(json.dumps(to_wire([checkpoint_entry(i) for i in infos]), ensure_ascii=False))
        return 0
    if not infos:
        print("no checkpoints")
    for info in infos:
        print(f"{info.id}  {info.iso_time}  {info.state:<7}  {info.description}")
        for path in info.files:
            print(f"    {path}")
    return 0
