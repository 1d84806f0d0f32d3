"""The `agent-ls` command: LSP server (default) and terminal sub-commands."""

from __future__ import annotations

import argparse
import os
import sys
from typing import BinaryIO

from server import __version__
from server.commands import acp as acp_command
from server.commands import chat as chat_command
from server.commands import checkpoints as checkpoints_command
from server.commands import doctor as doctor_command
from server.commands import parse as parse_command
from server.commands import parse_log as parse_log_command
from server.commands import sessions as sessions_command
from server.logs import setup_logging
from server.wording import LOG_LEVELS


def protocol_stdout() -> BinaryIO:
    """Keep the real stdout for JSON-RPC only; everything else written to fd 1 goes to stderr.

    One stray line on stdout breaks the connection for good in some editors, and child
    processes inherit fd 1, so redirect the descriptor itself, not just `sys.stdout`.
    """
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(protocol_fd, "wb", buffering=0)


def serve(args: argparse.Namespace) -> int:
    from server.app import build_server

    server = build_server()
    if args.tcp:
        sys.stdout = sys.stderr
        server.start_tcp(args.host, args.port)
    else:
        server.start_io(sys.stdin.buffer, protocol_stdout())
    return server.exit_code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-ls", description="AI coding assistant as a Language Server."
    )
    parser.add_argument("--version", action="version", version=f"agent-ls {__version__}")
    _log_level_option(parser, "WARNING")
    parser.set_defaults(func=serve, tcp=False, host="127.0.0.1", port=2087)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve_parser = sub.add_parser("serve", help="speak LSP over stdio (default) or TCP")
    serve_parser.add_argument("--tcp", action="store_true", help="listen on TCP, not stdio")
    serve_parser.add_argument("--host", default="127.0.0.1")
    serve_parser.add_argument("--port", type=int, default=2087)
    serve_parser.set_defaults(func=serve)
    chat_command.register(sub)
    parse_command.register(sub)
    parse_log_command.register(sub)
    checkpoints_command.register(sub)
    doctor_command.register(sub)
    acp_command.register(sub)
    sessions_command.register(sub)
    for command in sub.choices.values():  # accepted before or after the sub-command
        if not any("--log-level" in action.option_strings for action in command._actions):
            _log_level_option(command, argparse.SUPPRESS)
    return parser


def _log_level_option(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument(
        "--log-level",
        default=default,
        type=str.upper,
        choices=LOG_LEVELS,
        metavar="LEVEL",
        help=f"stderr log level: {', '.join(LOG_LEVELS)} (default WARNING)",
    )


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    setup_logging(args.log_level)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
