"""A scripted fake agent command for the `cli` provider: ``python -m tests.fakecli MODE``.

It writes stream-json logs like a coding-agent CLI does; see ``__main__`` for the modes.
"""

from __future__ import annotations

import sys
from pathlib import Path

MODES = ("success", "plan", "garbage", "no_result", "error", "crash", "sleep", "wait")


def command(mode: str, *extra: str) -> list[str]:
    """The argv that runs the fake agent in `mode` with this interpreter."""
    root = Path(__file__).resolve().parents[2]
    return [sys.executable, "-P", str(root / "tests" / "fakecli" / "__main__.py"), mode, *extra]
