"""The `agent-ls` command: LSP server (default) and terminal sub-commands."""

from __future__ import annotations

import argparse
import os
import sys

from server import __version__
from server.commands import acp as acp_command
from server.commands import chat as chat_command
from server.commands import checkpoints as checkpoints_command
from server.commands import doctor as doctor_command
from server.commands import index as index_command
from server.commands import mcp as mcp_command
from server.commands import parse as parse_command
from server.commands import parse_log as parse_log_command
from server.commands import search as search_command
from server.commands import sessions as sessions_command
from server.commands.errors import INTERRUPTED, PIPE_CLOSED, CliParser, complain, failure
from server.logs import setup_logging
from server.stdio import protocol_stdout
from server.wording import LOG_LEVELS


def serve(args: argparse.Namespace) -> int:
    from server.app import build_server

    server = build_server()
    if args.tcp:
        sys.stdout = sys.stderr
        try:
            server.start_tcp(args.host, args.port, fresh=build_server)
        except OSError as exc:  # the address is in use, the host unknown
            code = exc.errno if isinstance(exc.errno, int) and exc.errno > 0 else None
            reason = os.strerror(code) if code else exc.strerror or str(exc)  # not getaddrinfo's
            return failure(f"cannot listen on {args.host}:{args.port}: {reason}")
    else:
        server.start_io(sys.stdin.buffer, protocol_stdout())
    return server.exit_code


def port_number(text: str) -> int:
    """--port: 0 to 65535 (anything else is a usage error, not a traceback from bind)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0 to 65535, got {port}")
    return port


def build_parser() -> argparse.ArgumentParser:
    parser = CliParser(
        prog="agent-ls",
        description="AI coding assistant as a Language Server.",
        epilog="Exit codes: 0 done, 1 failed or refused, 2 usage error (bad command line, "
        "file, folder or setting; nothing done), 130 interrupted.",
    )
    parser.add_argument("--version", action="version", version=f"agent-ls {__version__}")
    _log_level_option(parser, "WARNING")
    parser.set_defaults(func=serve, tcp=False, host="127.0.0.1", port=2087)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve_parser = sub.add_parser("serve", help="speak LSP over stdio (default) or TCP")
    serve_parser.add_argument("--tcp", action="store_true", help="listen on TCP, not stdio")
    serve_parser.add_argument("--host", default="127.0.0.1")
    serve_parser.add_argument("--port", type=port_number, default=2087, help="0: a free port")
    serve_parser.set_defaults(func=serve)
    chat_command.register(sub)
    parse_command.register(sub)
    parse_log_command.register(sub)
    checkpoints_command.register(sub)
    doctor_command.register(sub)
    index_command.register(sub)
    search_command.register(sub)
    acp_command.register(sub)
    sessions_command.register(sub)
    mcp_command.register(sub)
    parser.commands = sub.choices
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
    try:
        result: int = args.func(args)
    except KeyboardInterrupt:  # commands with work to keep or undo catch it themselves
        complain("interrupted")
        return INTERRUPTED
    except BrokenPipeError:  # the reader of stdout went away (`agent-ls doctor | head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return PIPE_CLOSED
    return result


if __name__ == "__main__":
    sys.exit(main())
