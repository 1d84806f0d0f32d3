"""Effectful file writes used when edits go straight to disk (SPEC §7): atomic and careful.

- ``write_atomic``: the data goes to a temp file in the same folder, is fsynced, then
  ``os.replace``d over the target, so a reader sees the old or the new content, never half.
  An existing file keeps its permission bits; a new one gets the default mode (umask
  applied). Missing parent folders are created. A symlink target is written through (the
  link stays a link).
- ``delete_file``: removes a file; optionally removes the parent folders it leaves empty, up
  to (not including) a ``stop_at`` folder — the caller passes the workspace root when the
  plan created those folders.
- ``read_bytes_or_none``: the bytes of a file, or ``None`` when it does not exist.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path


def write_atomic(
    path: Path,
    data: bytes,
    *,
    executable: bool | None = None,
    durable: bool = True,
    mode: int | None = None,
) -> None:
    """Replace ``path`` with ``data`` atomically (temp file + rename; fsync when ``durable``).

    An existing file keeps its permission bits, except the executable ones when
    ``executable`` is given (True sets them where read is allowed, False clears them); a new
    file gets 0o666 or 0o777 less the umask. ``durable=False`` skips the fsyncs: still atomic
    against a killed process, not against a power cut (the checkpoint store's choice).
    ``mode`` gives the file exactly these permission bits, from its creation on (the
    checkpoint store's private files: 0o600).
    """
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = None
        if mode is not None and executable is not None:
            mode = (mode | ((mode & 0o444) >> 2)) if executable else mode & ~0o111
        create = 0o777 if executable else 0o666
    else:
        create = mode
    temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, create)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    if durable:
        _fsync_folder(target.parent)


def delete_file(path: Path, *, stop_at: Path | None = None) -> bool:
    """Delete the file ``path``; ``False`` if it did not exist.

    With ``stop_at``, parent folders left empty are removed too, walking up until
    ``stop_at`` (which is never removed) or the first non-empty folder.
    """
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    _fsync_folder(path.parent)
    if stop_at is not None:
        _remove_empty_parents(path.parent, stop_at)
    return True


def read_bytes_or_none(path: Path) -> bytes | None:
    """The file's bytes, or ``None`` when it does not exist (other errors propagate)."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _remove_empty_parents(folder: Path, stop_at: Path) -> None:
    stop = Path(os.path.abspath(stop_at))
    current = Path(os.path.abspath(folder))
    while current != stop and current.is_relative_to(stop):
        try:
            current.rmdir()
        except OSError:
            return  # not empty (or not ours to remove): stop climbing
        current = current.parent


def _fsync_folder(folder: Path) -> None:
    """Make the rename/unlink durable; best effort on filesystems that refuse it."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
