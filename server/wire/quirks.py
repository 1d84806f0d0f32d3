"""Known client bugs, tolerated before a message is checked against its method's types.

Neovim 0.7's `vim.lsp.buf.add_workspace_folder()` sends `workspace/didChangeWorkspaceFolders`
with `removed: [{}]` (an empty object for "nothing removed"): strictly invalid, and refusing
the whole notification would lose the folder it adds. Entries that are not folders (no string
`uri`) are dropped from `added` / `removed`, with a log line; the rest goes on as sent.
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types

log = logging.getLogger(__name__)


def tolerated(method: str | None, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with the known client bugs of ``method`` mended (unchanged otherwise)."""
    if method != types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS:
        return data
    params = data.get("params")
    if not isinstance(params, dict) or not isinstance(params.get("event"), dict):
        return data
    event: dict[str, Any] = params["event"]
    mended = dict(event)
    for side in ("added", "removed"):
        entries = event.get(side)
        if not isinstance(entries, list):
            continue
        folders = [e for e in entries if isinstance(e, dict) and isinstance(e.get("uri"), str)]
        for entry in folders:
            entry.setdefault("name", entry["uri"].rstrip("/").rsplit("/", 1)[-1])
        if len(folders) != len(entries):
            log.info(
                "%s: dropped %d %s entries that are not folders",
                method,
                len(entries) - len(folders),
                side,
            )
        mended[side] = folders
    return {**data, "params": {**params, "event": mended}}
