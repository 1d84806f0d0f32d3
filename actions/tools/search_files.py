"""The ``search_files`` tool: a grep over the workspace that works with or without an index.

Arguments: ``{"pattern": str, "regex"?: bool, "path"?: str}``. The pattern is literal text
unless ``regex`` is true; it matches case-insensitively when it has no capital letter (smart
case). ``path`` limits the search to one folder or file. Files are those ``list_files`` shows
(.gitignore honoured, noise folders skipped); secret files, binary and huge files are never
read. Output: ``/path:line: text`` lines, at most ``max_matches`` (lines cut at
``max_line_chars``), with a notice when more exist.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from actions.errors import InvalidToolCall, ToolExecutionError
from actions.paths import Workspace
from actions.tools.base import Tool, ToolResult
from actions.tools.file_listing import git_files, walk_files
from actions.tools.list_files import ListFilesConfig

NAME = "search_files"

MANIFEST = Tool(
    name=NAME,
    description=(
        "Find lines containing a text (or a regular expression with regex=true) in the "
        "workspace's files; returns '/path:line: text'. Optional 'path' limits it to a folder "
        "or file. Case-insensitive unless the pattern has a capital letter."
    ),
    parameters={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1, "description": "Text to find"},
            "regex": {"type": "boolean", "description": "Treat pattern as a Python regex"},
            "path": {"type": "string", "minLength": 1, "description": "Folder or file"},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
)


@dataclass(frozen=True)
class SearchFilesConfig:
    max_matches: int = 200
    max_line_chars: int = 300
    max_file_bytes: int = 2 * 2**20
    scan_limit: int = 50_000
    git_timeout: float = 20.0


@dataclass(frozen=True)
class Match:
    path: str
    line: int
    text: str


class SearchFiles:
    """``search_files`` over one workspace."""

    name = NAME

    def __init__(self, workspace: Workspace, config: SearchFilesConfig | None = None) -> None:
        self.workspace = workspace
        self.config = config or SearchFilesConfig()
        self._skip_dirs = ListFilesConfig().skip_dirs

    async def execute(self, args: Mapping[str, Any]) -> ToolResult:
        raw = str(args["pattern"])
        compiled = self._compile(raw, bool(args.get("regex", False)))
        target = self.workspace.resolve(str(args.get("path", "/")), for_write=False)
        if not target.absolute.exists():
            raise ToolExecutionError(f"search_files: {target.model_path} does not exist")
        if target.absolute.is_file():
            files = [target.relative]
        else:
            listing = await git_files(self.workspace.root, target.relative, self.config.git_timeout)
            if listing is None:
                listing = await asyncio.to_thread(
                    walk_files,
                    self.workspace.root,
                    target.relative,
                    self._skipped,
                    self.config.scan_limit,
                )
            files = [path for path in listing.files if not self._skipped(path)]
        matches, more = await asyncio.to_thread(self._scan, sorted(files), compiled)
        return self._render(raw, matches, more)

    def _compile(self, raw: str, regex: bool) -> re.Pattern[str]:
        flags = 0 if any(char.isupper() for char in raw) else re.IGNORECASE
        try:
            return re.compile(raw if regex else re.escape(raw), flags)
        except re.error as error:
            reason = f"not a valid regular expression: {error}"
            raise InvalidToolCall(NAME, "pattern", reason) from None

    def _skipped(self, relative: str) -> bool:
        parts = relative.split("/")
        return (
            any(part in self._skip_dirs for part in parts)
            or self.workspace.is_denied(relative)
            or self.workspace.is_secret(relative)
        )

    def _scan(self, files: list[str], pattern: re.Pattern[str]) -> tuple[list[Match], bool]:
        matches: list[Match] = []
        for relative in files:
            text = self._text(relative)
            if text is None:
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if pattern.search(line):
                    if len(matches) >= self.config.max_matches:
                        return matches, True
                    matches.append(Match(relative, number, self._clip(line)))
        return matches, False

    def _text(self, relative: str) -> str | None:
        if self.workspace.is_secret(relative) or self.workspace.is_denied(relative):
            return None
        path = self.workspace.root / relative
        try:
            if not path.is_file() or path.stat().st_size > self.config.max_file_bytes:
                return None
            data = path.read_bytes()
        except OSError:
            return None
        if b"\0" in data[:8192]:
            return None
        return data.decode("utf-8", errors="replace")

    def _clip(self, line: str) -> str:
        limit = self.config.max_line_chars
        return line if len(line) <= limit else line[:limit] + "…"

    def _render(self, raw: str, matches: list[Match], more: bool) -> ToolResult:
        shown = [
            {"path": self.workspace.shown(m.path), "line": m.line, "text": m.text} for m in matches
        ]
        return render_matches(shown, more, self.config.max_matches, f"No line matches {raw!r}.")


def render_matches(
    matches: list[dict[str, Any]], more: bool, limit: int, nothing: str
) -> ToolResult:
    """The tool's answer: one ``path:line: text`` per match (``nothing`` when there is
    none), and how to narrow the search when it stopped at ``limit`` matches."""
    data = {"matches": matches, "truncated": more}
    if not matches:
        return ToolResult.success(nothing, data)
    lines = [f"{m['path']}:{m['line']}: {m['text']}" for m in matches]
    if more:
        lines.append(
            f"(stopped at {limit} matches: narrow the pattern or give 'path' to search one folder)"
        )
    return ToolResult.success("\n".join(lines), data)
