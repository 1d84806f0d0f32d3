"""Which workspace files the index covers, and reading one of them safely.

Covered: the files ``list_files`` would list (``actions.files``: .gitignore honoured, ``.git``,
the checkpoint store and noise folders such as ``node_modules`` skipped), minus the secret deny list
(secret files are never read, not even recorded). A covered file that cannot be indexed —
too large, binary, not UTF-8, unreadable, refused (a symlink out of the workspace), gone while
being read, a PDF without the ``pdf`` extra — is recorded ``failed`` with that reason. PDFs
are read as bytes and converted to markdown by the indexer (``actions.index.pdf``).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from actions.errors import PathRefused
from actions.files.ignore import IgnoreTree
from actions.files.listing import SKIP_DIRS, in_skipped_dir, list_files
from actions.index.pdf import PDF_HINT, available
from actions.paths import Workspace

BINARY_SNIFF_BYTES = 8192
SKIPPED_SUFFIXES = frozenset(
    [
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".webp",
        ".ico",
        ".bmp",
        ".tiff",
        ".svgz",
        ".zip",
        ".gz",
        ".tgz",
        ".bz2",
        ".xz",
        ".zst",
        ".7z",
        ".rar",
        ".jar",
        ".war",
        ".whl",
        ".egg",
        ".so",
        ".dylib",
        ".dll",
        ".exe",
        ".o",
        ".a",
        ".lib",
        ".class",
        ".pyc",
        ".pyo",
        ".wasm",
        ".bin",
        ".dat",
        ".db",
        ".sqlite",
        ".sqlite3",
        ".mp3",
        ".mp4",
        ".mov",
        ".avi",
        ".mkv",
        ".wav",
        ".flac",
        ".ogg",
        ".woff",
        ".woff2",
        ".ttf",
        ".otf",
        ".eot",
        ".psd",
        ".ai",
        ".sketch",
        ".fig",
        ".iso",
        ".dmg",
        ".lock",
    ]
)


@dataclass(frozen=True)
class IndexConfig:
    max_file_bytes: int = 4 * 2**20
    max_pdf_bytes: int = 64 * 2**20  # PDFs are converted to markdown (the `pdf` extra)
    batch_documents: int = 200  # a full build writes this many documents per transaction
    scan_limit: int = 200_000
    git_timeout: float = 60.0
    skip_dirs: frozenset[str] = SKIP_DIRS


@dataclass(frozen=True)
class FileRead:
    """The outcome of reading one file: its text, or why it was not indexed."""

    size: int
    mtime_ns: int
    text: str | None = None
    content_hash: str = ""
    reason: str = ""
    pdf: bytes | None = None  # a PDF's bytes, converted after the content-hash check


class FileSet:
    """The covered files of one workspace."""

    def __init__(self, workspace: Workspace, config: IndexConfig) -> None:
        self.workspace = workspace
        self.config = config

    def skipped(self, relative: str) -> bool:
        """Never indexed nor recorded: noise folders, denied locations, secrets, media and
        archives (by suffix)."""
        return (
            in_skipped_dir(relative, self.config.skip_dirs)
            or self.workspace.is_denied(relative)
            or self.workspace.is_secret(relative)
            or Path(relative).suffix.lower() in SKIPPED_SUFFIXES
        )

    async def list(self) -> list[str]:
        """Every covered file (sorted)."""
        root, config = self.workspace.root, self.config
        listing = await list_files(
            root, "", self.skipped, timeout=config.git_timeout, scan_limit=config.scan_limit
        )
        return sorted(path for path in listing.files if not self.skipped(path))

    def ignored(self, paths: Iterable[str]) -> set[str]:
        """Those of ``paths`` that .gitignore rules exclude (for single-file updates)."""
        rules = IgnoreTree(self.workspace.root)
        return {path for path in paths if rules.ignored(path)}

    def stat(self, relative: str) -> os.stat_result | None:
        """``None`` when the file does not exist (any more); a dangling symlink's own stat."""
        path = self.workspace.root / relative
        try:
            return os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            try:
                return os.lstat(path) if os.path.islink(path) else None
            except OSError:
                return None

    def read(self, relative: str, info: os.stat_result) -> FileRead:
        """Read and check one file (see the module docstring for the failure reasons)."""
        size, mtime = info.st_size, info.st_mtime_ns
        try:
            resolved = self.workspace.resolve_listed(relative)
        except PathRefused as refused:
            return FileRead(size, mtime, reason=f"refused: {refused.reason}")
        if not stat.S_ISREG(info.st_mode):
            return FileRead(size, mtime, reason="not a regular file")
        is_pdf = relative.lower().endswith(".pdf")
        if is_pdf and not available():
            return FileRead(size, mtime, reason=PDF_HINT)
        limit = self.config.max_pdf_bytes if is_pdf else self.config.max_file_bytes
        if size > limit:
            return FileRead(size, mtime, reason=f"too large ({size} bytes > {limit} limit)")
        try:
            with open(resolved.absolute, "rb") as handle:
                data = handle.read(limit + 1)
        except FileNotFoundError:
            return FileRead(size, mtime, reason="deleted while being indexed")
        except OSError as error:
            return FileRead(size, mtime, reason=f"unreadable ({error.strerror or error})")
        if len(data) > limit:
            return FileRead(size, mtime, reason="grew too large while being indexed")
        digest = hashlib.sha256(data).hexdigest()
        if is_pdf:
            return FileRead(len(data), mtime, "", digest, pdf=data)
        if b"\0" in data[:BINARY_SNIFF_BYTES]:
            return FileRead(size, mtime, content_hash=digest, reason="binary (NUL bytes)")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            reason = f"not UTF-8 text (byte {error.start})"
            return FileRead(size, mtime, content_hash=digest, reason=reason)
        return FileRead(len(data), mtime, text.removeprefix("\ufeff"), digest)
