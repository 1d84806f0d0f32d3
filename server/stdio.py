"""The process's stdout, reserved for the protocol (JSON-RPC for LSP and ACP alike)."""

from __future__ import annotations

import os
import sys
from typing import BinaryIO


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
