"""The ``list_files`` tool: every file and folder path of the workspace, ignored ones excluded.

Arguments: ``{}`` for the whole workspace, or ``{"path": "/src"}`` to list one folder.
Output, one model path per line (``/src/`` for folders, ``/src/App.jsx`` for files), in tree
order. Rules (SPEC §5, §6):
- .gitignore is honoured (git itself in a git work tree, else a walk with the same rules);
- never listed: ``.git`` and the checkpoint store (denied locations), and the noise folders
  of ``ListFilesConfig.skip_dirs`` (``node_modules``, ``__pycache__``, ``.venv``...), which
  stay readable by explicit path;
- secret files (``.env``, ``*.pem``, ``.ssh/``... see ``actions.paths``) are not listed unless
  the user allowed them: a last line says how many were withheld and why, so the model knows
  not to ask for them; so are symlinks that ``read_file`` would refuse (pointing outside the
  workspace, into ``.git``, at a secret file or at nothing), counted on a line of their own;
- at most ``max_entries`` paths (default 2000); when more exist, the shallowest are shown and
  a ``truncated: N more`` line follows.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from actions.errors import PathRefused, ToolExecutionError
from actions.files.listing import SKIP_DIRS, Listing, in_skipped_dir, list_files
from actions.paths import Workspace
from actions.tools.base import Tool, ToolResult

NAME = "list_files"
SECRET_NOTE = (
    "({count} secret file(s) not listed: agent-ls does not read, list or write secret files "
    "unless the user allows them)"
)
LINK_NOTE = (
    "({count} symlink(s) not listed: they point outside the workspace, into .git, at a secret "
    "file or at nothing, and agent-ls never reads through them)"
)

MANIFEST = Tool(
    name=NAME,
    description=(
        "List every file and folder path of the workspace (ignored files excluded). "
        "Folders end with '/'. Optional 'path' lists only that folder."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "A folder to list, e.g. '/src'. Default: the whole workspace.",
            }
        },
        "additionalProperties": False,
    },
)


@dataclass(frozen=True)
class ListFilesConfig:
    max_entries: int = 2000
    scan_limit: int = 100_000
    git_timeout: float = 20.0
    skip_dirs: frozenset[str] = SKIP_DIRS


class ListFiles:
    """``list_files`` over one workspace."""

    name = NAME

    def __init__(self, workspace: Workspace, config: ListFilesConfig | None = None) -> None:
        self.workspace = workspace
        self.config = config or ListFilesConfig()

    async def execute(self, args: Mapping[str, Any]) -> ToolResult:
        folder = self.workspace.resolve(str(args.get("path", "/")), for_write=False)
        if not folder.absolute.is_dir():
            what = "does not exist" if not folder.absolute.exists() else "is a file, not a folder"
            raise ToolExecutionError(f"list_files: {folder.model_path} {what}")
        return self._render(await self.listing(folder.relative), folder.relative)

    async def listing(self, relative: str = "") -> Listing:
        """The files below the folder `relative` (git's view in a work tree, else a walk),
        noise folders and denied locations included (`files` filters them)."""
        config = self.config
        return await list_files(
            self.workspace.root,
            relative,
            self._skipped,
            timeout=config.git_timeout,
            scan_limit=config.scan_limit,
        )

    async def files(self) -> Listing:
        """Every file of the workspace a model may name, as `list_files` shows them."""
        listing = await self.listing()
        kept = [path for path in listing.files if not self._skipped(path)]
        return Listing(kept, listing.source, listing.complete)

    def _skipped(self, relative: str) -> bool:
        return in_skipped_dir(relative, self.config.skip_dirs) or self.workspace.is_denied(relative)

    def _render(self, listing: Listing, base: str) -> ToolResult:
        visible = [path for path in listing.files if not self._skipped(path)]
        named = [path for path in visible if not self.workspace.is_secret(path)]
        withheld = len(visible) - len(named)
        files = [path for path in named if not self._unreadable_link(path)]
        links = len(named) - len(files)
        entries = with_folders(files, base=base)
        kept = shallowest(entries, self.config.max_entries)
        hidden = len(entries) - len(kept)
        file_set = set(files)
        lines = [self._line(entry, entry in file_set) for entry in kept]
        if hidden or not listing.complete:
            more = f"{hidden}{'+' if not listing.complete else ''}"
            lines.append(
                f"(truncated: {more} more paths not shown; call list_files with "
                f'{{"path": "{self.workspace.shown("some/folder")}"}} to list one folder)'
            )
        if not kept:
            lines.append("(no files)")
        if withheld:
            lines.append(SECRET_NOTE.format(count=withheld))
        if links:
            lines.append(LINK_NOTE.format(count=links))
        data = {
            "paths": [self.workspace.shown(entry) for entry in kept],
            "total": len(entries),
            "truncated": hidden,
            "complete": listing.complete,
            "source": listing.source,
            "secretsWithheld": withheld,
            "symlinksWithheld": links,
        }
        return ToolResult.success("\n".join(lines), data)

    def _unreadable_link(self, relative: str) -> bool:
        """A symlink whose target `read_file` refuses (outside the workspace, in .git, a
        secret, missing). Listings never go through a symlinked folder, so only the entry
        itself can be one."""
        if not os.path.islink(self.workspace.root / relative):
            return False
        try:
            self.workspace.resolve_listed(relative)
        except PathRefused:
            return True
        return False

    def _line(self, entry: str, is_file: bool) -> str:
        return self.workspace.shown(entry) + ("" if is_file else "/")


def with_folders(files: list[str], base: str = "") -> list[str]:
    """The files plus every folder leading to them (below ``base``), in tree order."""
    entries = set(files)
    for path in files:
        cut = path.rfind("/")
        while cut > 0:
            folder = path[:cut]
            if folder == base or folder in entries:
                break
            entries.add(folder)
            cut = path.rfind("/", 0, cut)
    return sorted(entries, key=lambda entry: entry.split("/"))


def shallowest(entries: list[str], limit: int) -> list[str]:
    """At most ``limit`` entries, shallow ones first, returned in tree order."""
    if len(entries) <= limit:
        return entries
    by_depth = sorted(range(len(entries)), key=lambda i: (entries[i].count("/"), i))
    chosen = sorted(by_depth[:limit])
    return [entries[i] for i in chosen]
