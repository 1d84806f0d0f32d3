"""CLI sub-commands of `agent-ls`.

Each module exposes `register(subparsers)`, which adds one sub-command and sets
`func=run` where `run(args: argparse.Namespace) -> int` returns the exit code.
`server/__main__.py` lists them explicitly.
"""
