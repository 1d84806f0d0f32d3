"""CLI: ``python -m tests.fakellm [--port N] [--script FILE] [--port-file PATH]``.

Binds 127.0.0.1, prints ``fakellm listening on http://127.0.0.1:PORT`` (flushed), writes the
port to --port-file if given (atomically), serves until SIGTERM or SIGINT, then exits 0.
Without --script every chat request gets the default reply "Hello from fakellm.".
Requests (and their API keys) are never printed; read them via ``GET /_control/requests``;
``GET /_control/stats`` gives the connections accepted and still open.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from tests.fakellm.script import Script
from tests.fakellm.server import FakeLLM

DEFAULT_SCRIPT = {"default": "Hello from fakellm."}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tests.fakellm", description=__doc__)
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free)")
    parser.add_argument("--script", type=Path, help="JSON script file")
    parser.add_argument("--port-file", type=Path, help="write the bound port to this file")
    return parser


def _load_script(path: Path | None) -> Script:
    if path is None:
        return Script.from_json(DEFAULT_SCRIPT)
    return Script.from_json(json.loads(path.read_text(encoding="utf-8")))


def _write_port_file(path: Path, port: int) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(f"{port}\n", encoding="utf-8")
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        script = _load_script(args.script)
    except (OSError, ValueError) as exc:
        print(f"fakellm: cannot load script {args.script}: {exc}", file=sys.stderr)
        return 2
    done = threading.Event()

    def _on_signal(signum: int, frame: FrameType | None) -> None:
        done.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    with FakeLLM(script, port=args.port) as llm:
        if args.port_file is not None:
            _write_port_file(args.port_file, llm.port)
        print(f"fakellm listening on {llm.url}", flush=True)
        while not done.wait(0.5):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
