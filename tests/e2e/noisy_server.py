"""The real agent-ls entry point plus one handler that writes junk to stdout three ways.

Used to prove that stray output (a print, a child process, a raw fd write) never reaches
the JSON-RPC stream.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from server import __main__ as entry
from server import app

_build = app.build_server


def build_noisy_server() -> Any:
    server = _build()

    @server.feature("test/noisy")
    async def noisy(ls: Any, params: Any) -> dict[str, bool]:
        print("Content-Length: 99\r\n\r\nstray print from a handler")
        subprocess.run(["echo", "stray output from a child process"], check=True)
        os.write(1, b"raw write to fd 1\n")
        return {"ok": True}

    return server


app.build_server = build_noisy_server

if __name__ == "__main__":
    sys.exit(entry.main())
