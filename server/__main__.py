"""The `agent-ls` command: LSP server (default) and terminal sub-commands."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterable, Iterator, Sequence

from server import __version__
from server.commands.errors import INTERRUPTED, PIPE_CLOSED, CliParser, complain, failure
from server.logs import setup_logging
from server.stdio import protocol_stdout
from server.wording import LOG_LEVELS

# The sub-commands in `--help` order: (names it registers, its module). Only the module of the
# command being run is imported (`agent-ls search` never loads lsprotocol or the chat loop); a
# command line naming none (`--help`, a typo) imports them all.
COMMANDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("chat",), "server.commands.chat"),
    (("parse",), "server.commands.parse"),
    (("parse-log",), "server.commands.parse_log"),
    (("undo", "redo", "checkpoints"), "server.commands.checkpoints"),
    (("doctor",), "server.commands.doctor"),
    (("index",), "server.commands.index"),
    (("search",), "server.commands.search"),
    (("acp",), "server.commands.acp"),
    (("sessions",), "server.commands.sessions"),
    (("mcp",), "server.commands.mcp"),
)


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


def command_modules(argv: Sequence[str] | None) -> list[str]:
    """The modules to register: the one of the sub-command named on the command line, or
    every one (none named: the server, `--help`, a mistake that lists them all)."""
    words = list(argv or ())
    while words and words[0].startswith("-"):  # the options before the sub-command
        option = words.pop(0)
        if option == "--log-level" and words:
            words.pop(0)
    for names, module in COMMANDS:
        if words and words[0] in names:
            return [module]
    return [module for _, module in COMMANDS]


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
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
    for module in command_modules(argv):
        importlib.import_module(module).register(sub)
    parser.commands = sub.choices
    for command in _commands(sub.choices.values()):  # accepted before or after the command
        if not any("--log-level" in action.option_strings for action in command._actions):
            _log_level_option(command, argparse.SUPPRESS)
    return parser


def _commands(parsers: Iterable[argparse.ArgumentParser]) -> Iterator[argparse.ArgumentParser]:
    """Each command's parser and those of its own sub-commands (`mcp list`)."""
    for parser in parsers:
        yield parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                yield from _commands(action.choices.values())


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
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
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
