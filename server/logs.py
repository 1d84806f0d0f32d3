"""Logging to stderr, WARNING by default, with secrets redacted from every record."""

from __future__ import annotations

import logging
import os
import sys

from server.config import API_KEY_ENV


class RedactSecrets(logging.Filter):
    """Replaces the values of secret environment variables wherever they appear in a log line."""

    def __init__(self, names: list[str]) -> None:
        super().__init__()
        self.names = names

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = [v for n in self.names if len(v := os.environ.get(n, "")) >= 4]
        if secrets:
            text = record.getMessage()
            for secret in secrets:
                text = text.replace(secret, "***")
            record.msg, record.args = text, None
        return True


def secret_env_names() -> list[str]:
    names = {API_KEY_ENV, "OPENAI_API_KEY", "ANTHROPIC_API_KEY"}
    names |= {n for n in os.environ if n.endswith(("_API_KEY", "_TOKEN", "_SECRET"))}
    return sorted(names)


def setup_logging(level: str = "WARNING") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("agent-ls %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets(secret_env_names()))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # pygls logs every payload at INFO and httpx every request: keep them quiet.
    for noisy in ("pygls", "httpx", "httpcore"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
