"""Logging to stderr, WARNING by default, with secrets redacted from every rendering.

The redaction (server/redact.py) applies to the whole formatted record (message, arguments,
exception and traceback) and to everything else written to stdout/stderr by Python code
(printed errors, the traceback of an uncaught exception), whatever library produced it.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO

from server.redact import redact


class RedactingFormatter(logging.Formatter):
    """Formats a record, then masks the secrets in the whole text."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class RedactingStream:
    """A text stream that masks secrets in what is written (stdout, stderr). `shapes`: also
    what only looks like one (see `redact`): on stderr (errors, logs), not on stdout, where
    a model's answer may show `password=...` as an example."""

    def __init__(self, inner: TextIO, *, shapes: bool = True) -> None:
        self.inner = inner
        self.shapes = shapes

    def write(self, text: str) -> int:
        self.inner.write(redact(text, shapes=self.shapes))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def guard_streams() -> None:
    """Redact sys.stdout and sys.stderr (idempotent)."""
    if not isinstance(sys.stderr, RedactingStream):
        sys.stderr = RedactingStream(sys.stderr)
    if not isinstance(sys.stdout, RedactingStream):
        sys.stdout = RedactingStream(sys.stdout, shapes=False)


def setup_logging(level: str = "WARNING") -> None:
    guard_streams()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter("agent-ls %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # pygls logs every payload at INFO and httpx every request: keep them quiet.
    for noisy in ("pygls", "httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
    # psycopg warns again about a connection we already report as one error line
    # ("error ignored terminating <Pipeline>" when the server dies mid-executemany).
    logging.getLogger("psycopg").setLevel(max(logging.ERROR, root.level))
