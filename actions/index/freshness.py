"""Whether a workspace's index is up to date, told without walking the workspace again.

A walk (``update_all``: list the files — git or a scan with the .gitignore rules — and stat
each) costs far more than a search. After one, ``record_walk`` saves beside the index
(``walk.json``, private) the modification times of the folders holding the indexed documents
and of their parents up to the root. The index is **fresh** while

- every indexed document still has the size and modification time it was indexed with
  (none edited, none deleted), and none is left unfinished (``pending`` / ``chunked``);
- every recorded folder still has its time (no file added, removed or renamed in it: that
  changes the folder's time; a new sub-folder changes its parent's);
- the state was written for this store and these index settings.

That is a ``stat`` per document and folder, no listing, no git, no reading. Not seen: a file
added to a folder that holds no indexed file (only ignored or skipped ones), and an edit that
keeps a file's size and time (the walk skips that one too). A folder changed while the walk
ran is recorded as unknown, so the next check walks again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from actions.index.indexer import ProgressCallback, WorkspaceIndex
from actions.index.model import DocumentRecord
from actions.index.store import default_index_dir
from actions.index.summary_phase import UpdateReport
from actions.private import PRIVATE_FILE, make_private_dir

log = logging.getLogger(__name__)
STATE_FILE = "walk.json"
STATE_VERSION = 1
CLOCK_SLACK_NS = 2_000_000_000  # file systems stamp times coarsely: a change near the walk
UNKNOWN = -1  # a folder whose time moved during the walk: the next check walks


@dataclass(frozen=True)
class WalkState:
    """What the last walk saw: the store it filled, its settings, its folders' times."""

    location: str
    settings: str
    folders: dict[str, int] = field(default_factory=dict)  # "" is the root


def folders_of(paths: Iterable[str]) -> set[str]:
    """Every folder holding one of ``paths`` and the parents up to the root ("")."""
    found = {""}
    for path in paths:
        for parent in PurePosixPath(path).parents:
            text = parent.as_posix()
            found.add("" if text == "." else text)
    return found


def folder_times(root: Path, folders: Iterable[str], since_ns: int) -> dict[str, int]:
    """Each folder's modification time; ``UNKNOWN`` when gone or changed since ``since_ns``."""
    times: dict[str, int] = {}
    for folder in folders:
        try:
            mtime = os.stat(root / folder).st_mtime_ns
        except OSError:
            mtime = UNKNOWN
        times[folder] = UNKNOWN if mtime >= since_ns - CLOCK_SLACK_NS else mtime
    return times


def record_walk(
    state_file: Path,
    root: Path,
    state: WalkState,
    documents: Iterable[str],
    started_ns: int,
) -> None:
    """Save the times of the folders of ``documents`` (a walk that began at ``started_ns``)."""
    folders = folder_times(root, folders_of(documents), started_ns)
    data = {"version": STATE_VERSION, "location": state.location, "settings": state.settings}
    data["folders"] = folders
    make_private_dir(state_file.parent)
    temporary = state_file.with_name(state_file.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(temporary, state_file)


def load_walk(state_file: Path) -> WalkState | None:
    """The saved state; None when there is none or it cannot be read (then: walk)."""
    try:
        data = json.loads(state_file.read_text(encoding="utf-8"))
        if data.get("version") != STATE_VERSION:
            return None
        folders = {str(key): int(value) for key, value in data["folders"].items()}
        return WalkState(str(data["location"]), str(data["settings"]), folders)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def stale_reason(
    root: Path,
    saved: WalkState | None,
    expected: WalkState,
    documents: Mapping[str, DocumentRecord],
) -> str | None:
    """Why the index must be walked again, or None when it is fresh (see the module doc)."""
    if saved is None:
        return "no walk recorded"
    if (saved.location, saved.settings) != (expected.location, expected.settings):
        return "the last walk was for another store or other settings"
    for path, record in documents.items():
        if record.status not in ("ready", "failed"):
            return f"{path} is {record.status}"
        info = stat_of(root / path)
        if info is None:
            return f"{path} is gone"
        if (info.st_size, info.st_mtime_ns) != (record.size, record.mtime_ns):
            return f"{path} changed"
    for folder, mtime in saved.folders.items():
        try:
            now = os.stat(root / folder).st_mtime_ns
        except OSError:
            now = UNKNOWN
        if mtime == UNKNOWN or now != mtime:
            return f"folder {folder or '.'} changed"
    return None


def state_file_of(root: Path) -> Path:
    """Where the walk state of ``root`` is kept (beside its embedded index, whatever store)."""
    return default_index_dir(root) / STATE_FILE


def stat_of(path: Path) -> os.stat_result | None:
    """As the indexer records it: a dangling symlink's own stat; None when gone."""
    try:
        return os.stat(path)
    except OSError:
        try:
            return os.lstat(path) if os.path.islink(path) else None
        except OSError:
            return None


def expected_state(index: WorkspaceIndex) -> WalkState:
    """The state a walk of ``index`` now would record (settings: stable across runs)."""
    config = dataclasses.asdict(index.files.config)
    settings = json.dumps(config, sort_keys=True, default=sorted)  # frozensets sorted
    return WalkState(index.store.location, settings)


async def refresh(
    index: WorkspaceIndex,
    *,
    force: bool = False,
    progress: ProgressCallback | None = None,
) -> UpdateReport | None:
    """Walk and update the index when it is stale or ``force`` (then record the walk and
    return its report); None when it was fresh and nothing was walked."""
    expected = expected_state(index)
    state_file = state_file_of(index.workspace.root)
    if not force:
        documents = await asyncio.to_thread(index.store.documents)
        why = stale_reason(index.workspace.root, load_walk(state_file), expected, documents)
        if why is None:
            log.info("the index is fresh (%d documents): no walk", len(documents))
            return None
        log.info("walking the workspace: %s", why)
    started = time.time_ns()
    report = await index.update_all(progress)
    documents = await asyncio.to_thread(index.store.documents)
    await asyncio.to_thread(
        record_walk, state_file, index.workspace.root, expected, documents, started
    )
    return report
