"""What agent-ls keeps outside the workspace is private to its user.

The search index (``index.sqlite3`` with its ``-wal`` / ``-shm`` sidecars, the vector graph
files usearch writes beside it, ``summaries.sqlite3``), the stored conversations and the
checkpoint store hold copies of file content: every folder is 0700 and every file 0600, and
a folder left readable by an older version is tightened when it is opened. All of it lives
under the data folder (``$XDG_CACHE_HOME/agent-ls``, ``~/.cache/agent-ls`` by default) unless
an ``AGENT_LS_*_DIR`` variable moves a part elsewhere.

SQLite creates its ``-wal`` and ``-shm`` files with the mode of the database file, so a
database created 0600 here (``private_file``) keeps its sidecars private too.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
SQLITE_SIDECARS = ("-wal", "-shm", "-journal")
STORE_ENV = "AGENT_LS_CHECKPOINT_DIR"


def data_root() -> Path:
    """agent-ls's own folder in the user's cache (``$XDG_CACHE_HOME/agent-ls``)."""
    cache = os.environ.get("XDG_CACHE_HOME", "")
    cache_root = Path(cache) if os.path.isabs(cache) else Path.home() / ".cache"
    return cache_root / "agent-ls"


def default_store_dir(workspace: Path) -> Path:
    """Where the checkpoint store of `workspace` lives unless a `store_dir` is given (here, not
    in `actions.checkpoints`, so that `agent-ls search` can deny it without importing that)."""
    base = os.environ.get(STORE_ENV)
    root = Path(base) if base else data_root() / "checkpoints"
    key = hashlib.sha256(os.fsencode(os.path.realpath(workspace))).hexdigest()[:20]
    return root / key


def loose(path: Path) -> bool:
    """Whether ``path`` exists with permissions for its group or others."""
    try:
        return bool(os.stat(path).st_mode & 0o077)
    except FileNotFoundError:
        return False


def make_private_dir(path: Path) -> None:
    """Create ``path`` and its missing parents as 0700 folders; ``path`` itself and the
    folders between it and the data folder (``data_root``, included) become 0700, other
    existing parents are left alone (a folder the user chose, such as ``/tmp``). A ``path``
    an older version left readable by others is tightened whole (``tighten``)."""
    was_loose = loose(path)
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=PRIVATE_DIR)
    os.chmod(path, PRIVATE_DIR)
    root = data_root()
    for parent in path.parents:
        if not parent.is_relative_to(root):
            break
        if loose(parent):
            os.chmod(parent, PRIVATE_DIR)
    if was_loose:
        tighten(path)


def tighten(root: Path) -> None:
    """Drop group and other permissions below ``root`` (left so by an older version)."""
    for folder, _dirs, names in os.walk(root):
        os.chmod(folder, PRIVATE_DIR)
        for name in names:
            target = os.path.join(folder, name)
            with contextlib.suppress(FileNotFoundError):
                os.chmod(target, stat.S_IMODE(os.lstat(target).st_mode) & 0o700)


def private_file(path: Path) -> None:
    """Create ``path`` empty as a 0600 file when it is missing; an existing one (and a
    SQLite database's sidecars) loses its group and other permissions."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
    os.close(fd)
    for target in (path, *(path.with_name(path.name + end) for end in SQLITE_SIDECARS)):
        with contextlib.suppress(FileNotFoundError):
            mode = stat.S_IMODE(os.stat(target).st_mode)
            if mode & 0o077:
                os.chmod(target, mode & 0o700)


def private_sqlite(path: Path, *, own_folder: bool = True) -> None:
    """Prepare a private SQLite database at ``path``: its folder made private
    (``make_private_dir``; ``own_folder=False``, a folder the user named: only created when
    missing), the file created 0600 or tightened with its sidecars."""
    if own_folder or not path.parent.exists():
        make_private_dir(path.parent)
    private_file(path)
