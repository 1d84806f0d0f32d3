"""Running git safely on behalf of the checkpoint store: never with the user's GIT_* variables."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path


def clean_git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The process environment without the user's GIT_* variables, plus `extra`."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env["GIT_TERMINAL_PROMPT"] = "0"
    if extra:
        env.update(extra)
    return env


def run_git(
    args: Sequence[str], *, env: Mapping[str, str], cwd: Path | None = None, data: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    """Run git with exactly `env` (never inheriting GIT_DIR & co.); output captured."""
    return subprocess.run(
        ["git", *args], input=data, capture_output=True, env=dict(env), cwd=cwd, check=False
    )
