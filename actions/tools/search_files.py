"""The ``search_files`` tool: a grep over the workspace that works with or without an index.

Arguments: ``{"pattern": str, "regex"?: bool, "path"?: str}``. The pattern is literal text
unless ``regex`` is true; it matches case-insensitively when it has no capital letter (smart
case). ``path`` limits the search to one folder or file. Files are those ``list_files`` shows
(.gitignore honoured, noise folders skipped); secret files and binary files are never read.
Every file is read through ``Workspace.resolve_listed``, the rules of ``read_file``: a symlink
to outside the workspace, into ``.git`` or to a secret file is not followed, and the answer
names it as skipped with the reason, like a file over ``max_file_bytes``. Files are read in
bounded blocks, a long line in overlapping windows of ``max_line_bytes`` (a match longer than
``WINDOW_OVERLAP`` across two windows can be missed). Output: ``/path:line: text`` lines, at
most ``max_matches`` (a long line shown around its match, cut at ``max_line_chars``, with its
length), with a notice when more exist.
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from actions.errors import InvalidToolCall, PathRefused, ToolExecutionError
from actions.files.listing import SKIP_DIRS, in_skipped_dir, list_files
from actions.paths import Workspace
from actions.tools.base import Tool, ToolResult
from actions.tools.line_reader import Segment, segments

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


MAX_NOTES = 20  # skipped files named one by one, then counted
BINARY_SNIFF_BYTES = 8192
WINDOW_OVERLAP = 4096  # a match up to this long is found across two windows of a long line


@dataclass(frozen=True)
class SearchFilesConfig:
    max_matches: int = 200
    max_line_chars: int = 300
    max_line_bytes: int = 256 * 1024  # a longer line is searched in windows of this size
    max_file_bytes: int = 2 * 2**20
    scan_limit: int = 50_000
    git_timeout: float = 20.0


@dataclass(frozen=True)
class Match:
    path: str
    line: int
    text: str


@dataclass
class Scan:
    """What a search found, and what it could not look at (workspace-relative paths)."""

    matches: list[Match] = field(default_factory=list)
    more: bool = False  # stopped at max_matches
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason) not read


@dataclass(frozen=True)
class Notes:
    """The files a search did not read, and why, as shown."""

    skipped: list[dict[str, str]] = field(default_factory=list)


class SearchFiles:
    """``search_files`` over one workspace."""

    name = NAME

    def __init__(self, workspace: Workspace, config: SearchFilesConfig | None = None) -> None:
        self.workspace = workspace
        self.config = config or SearchFilesConfig()

    async def execute(self, args: Mapping[str, Any]) -> ToolResult:
        raw = str(args["pattern"])
        compiled = self._compile(raw, bool(args.get("regex", False)))
        target = self.workspace.resolve(str(args.get("path", "/")), for_write=False)
        if not target.absolute.exists():
            raise ToolExecutionError(f"search_files: {target.model_path} does not exist")
        if target.absolute.is_file():
            files = [target.relative]
        else:
            listing = await list_files(
                self.workspace.root,
                target.relative,
                self._skipped,
                timeout=self.config.git_timeout,
                scan_limit=self.config.scan_limit,
            )
            files = [path for path in listing.files if not self._skipped(path)]
        scan = await asyncio.to_thread(self._scan, sorted(files), compiled)
        return self._render(raw, scan)

    def _compile(self, raw: str, regex: bool) -> re.Pattern[str]:
        flags = 0 if any(char.isupper() for char in raw) else re.IGNORECASE
        try:
            return re.compile(raw if regex else re.escape(raw), flags)
        except re.error as error:
            reason = f"not a valid regular expression: {error}"
            raise InvalidToolCall(NAME, "pattern", reason) from None

    def _skipped(self, relative: str) -> bool:
        return (
            in_skipped_dir(relative, SKIP_DIRS)
            or self.workspace.is_denied(relative)
            or self.workspace.is_secret(relative)
        )

    def _scan(self, files: list[str], pattern: re.Pattern[str]) -> Scan:
        scan = Scan()
        for relative in files:
            if not self._scan_file(relative, pattern, scan):
                scan.more = True
                break
        return scan

    def _scan_file(self, relative: str, pattern: re.Pattern[str], scan: Scan) -> bool:
        """Add the file's matching lines to `scan`; False once `max_matches` is passed."""
        try:
            resolved = self.workspace.resolve_listed(relative)
            with open(resolved.absolute, "rb") as handle:
                info = os.fstat(handle.fileno())
                if not stat.S_ISREG(info.st_mode) or b"\0" in handle.read(BINARY_SNIFF_BYTES):
                    return True
                if info.st_size > self.config.max_file_bytes:
                    limit = self.config.max_file_bytes
                    scan.skipped.append((relative, f"larger than {limit} bytes"))
                    return True
                handle.seek(0)
                if info.st_size <= self.config.max_line_bytes:  # the usual file: at once
                    return self._scan_text(relative, handle.read(), pattern, scan)
                return self._scan_lines(relative, handle, pattern, scan)
        except PathRefused as refused:
            scan.skipped.append((relative, refused.reason))
        except OSError:
            pass  # gone or unreadable since the listing: nothing to search
        return True

    def _scan_text(self, relative: str, data: bytes, pattern: re.Pattern[str], scan: Scan) -> bool:
        """A file of at most one window, searched whole (only LF ends a line, as in
        read_file's numbering)."""
        lines = data.decode("utf-8", errors="replace").split("\n")
        if lines[-1] == "":
            lines.pop()  # the text ends with a line break, not with an empty line
        for number, line in enumerate(lines, 1):
            text = line.removesuffix("\r")
            hit = pattern.search(text)
            if hit is None:
                continue
            if len(scan.matches) >= self.config.max_matches:
                return False
            scan.matches.append(Match(relative, number, self._clip(text, hit, True, 0, len(text))))
        return True

    def _scan_lines(
        self, relative: str, handle: BinaryIO, pattern: re.Pattern[str], scan: Scan
    ) -> bool:
        """The file in bounded windows (`segments`): a long line is searched window by
        window, its first match kept and shown around the match once the line's length is
        known."""
        matched = 0  # the number of the line that already has its match
        found: tuple[Segment, str, re.Match[str]] | None = None
        for segment in segments(handle, self.config.max_line_bytes, WINDOW_OVERLAP):
            if segment.number != matched:
                text = segment.data.decode("utf-8", errors="replace")
                if segment.final:
                    text = text.removesuffix("\n").removesuffix("\r")
                hit = pattern.search(text)
                if hit is None:
                    continue
                if len(scan.matches) >= self.config.max_matches:
                    return False
                matched, found = segment.number, (segment, text, hit)
            if segment.final and found is not None:
                window, text, hit = found
                whole = window.final and window.offset == 0
                shown = self._clip(text, hit, whole, window.offset, segment.seen)
                scan.matches.append(Match(relative, segment.number, shown))
                found = None
        return True

    def _clip(self, text: str, hit: re.Match[str], whole: bool, offset: int, length: int) -> str:
        """The line (`text`: the line when `whole`, else its window at byte `offset`;
        `length`: the line's bytes), or the part around the match when longer than
        `max_line_chars`."""
        limit = self.config.max_line_chars
        if whole and len(text) <= limit:
            return text
        begin = max(0, min(hit.start() - limit // 3, len(text) - limit))
        clipped = text[begin : begin + limit]
        if begin or offset:
            clipped = "…" + clipped
        if not whole or begin + limit < len(text):
            clipped += "…"
        if not whole:
            clipped += f" (a line of {length} bytes, cut)"
        return clipped

    def _render(self, raw: str, scan: Scan) -> ToolResult:
        shown = [
            {"path": self.workspace.shown(m.path), "line": m.line, "text": m.text}
            for m in scan.matches
        ]
        skipped = [{"path": self.workspace.shown(p), "reason": r} for p, r in scan.skipped]
        return render_matches(
            shown,
            scan.more,
            self.config.max_matches,
            f"No line matches {raw!r}.",
            Notes(skipped),
        )


def render_matches(
    matches: list[dict[str, Any]],
    more: bool,
    limit: int,
    nothing: str,
    notes: Notes | None = None,
) -> ToolResult:
    """The tool's answer: one ``path:line: text`` per match (``nothing`` when there is
    none), how to narrow the search when it stopped at ``limit`` matches, and the files it
    did not read (a symlink out of the workspace, too large) and why."""
    notes = notes or Notes()
    data = {
        "matches": matches,
        "truncated": more,
        "skipped": notes.skipped,
    }
    lines = [f"{m['path']}:{m['line']}: {m['text']}" for m in matches] or [nothing]
    if more:
        lines.append(
            f"(stopped at {limit} matches: narrow the pattern or give 'path' to search one folder)"
        )
    for item in notes.skipped[:MAX_NOTES]:
        lines.append(f"(skipped {item['path']}: {item['reason']})")
    if len(notes.skipped) > MAX_NOTES:
        lines.append(f"(skipped {len(notes.skipped) - MAX_NOTES} more files)")
    return ToolResult.success("\n".join(lines), data)
