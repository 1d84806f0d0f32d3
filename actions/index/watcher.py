"""Watch a workspace with ``watchfiles`` and hand changed paths to a callback.

Changes (created, modified, deleted; a rename is a delete plus a create) are batched by
watchfiles (``debounce_ms``, default 50 ms, so a save is searchable well under 200 ms) and
given as workspace-relative posix paths; noise folders (``.git``, ``node_modules``...) and
the index's own files never reach the callback. Which files are indexed is the indexer's
business (.gitignore, secrets, sizes).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

import watchfiles

log = logging.getLogger(__name__)
ChangeCallback = Callable[[list[str]], Awaitable[object]]


class _Filter(watchfiles.DefaultFilter):
    def __init__(self, skip_dirs: Iterable[str]) -> None:
        super().__init__(ignore_dirs=tuple(set(self.ignore_dirs) | set(skip_dirs)))


async def watch(
    root: Path,
    on_change: ChangeCallback,
    stop: asyncio.Event,
    *,
    skip_dirs: Iterable[str] = (),
    debounce_ms: int = 50,
    ready: asyncio.Event | None = None,
) -> None:
    """Run until ``stop`` is set; ``ready`` is set once the watch is in place."""
    real_root = Path(os.path.realpath(root))
    watcher = watchfiles.awatch(
        real_root,
        watch_filter=_Filter(skip_dirs),
        debounce=debounce_ms,
        step=10,
        stop_event=stop,
        yield_on_timeout=True,
        rust_timeout=200,
    )
    async for changes in watcher:
        if ready is not None:
            ready.set()
        paths = sorted({_relative(real_root, path) for _, path in changes} - {""})
        if not paths:
            continue
        try:
            await on_change(paths)
        except Exception:  # the watch outlives one failed update
            log.exception("re-indexing %s failed", paths)


def _relative(root: Path, path: str) -> str:
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return ""
