"""The ``read_file`` tool: one file (``path``) or a batch (``paths``).

- Each path goes through workspace confinement; a refused, missing, directory, special or
  binary file is reported for that path alone — the rest of the batch is still read.
- A file larger than ``per_file_bytes`` (256 KB) is cut at a line boundary with a notice;
  once the batch has used ``per_batch_bytes`` (1 MB) the remaining files are skipped with a
  notice telling the model to read them in another call.
- Binary files (a NUL byte in the first 8 KB, or invalid UTF-8) are reported, not dumped.
- The result is ok when at least one file was read (binary counts as an answer).
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from actions.errors import PathRefused
from actions.paths import Workspace
from actions.tools.base import Tool, ToolResult

NAME = "read_file"
MAX_PATHS = 50
BINARY_SNIFF_BYTES = 8192

MANIFEST = Tool(
    name=NAME,
    description=(
        "Read the content of files. Give 'path' for one file or 'paths' for several "
        "(exactly one of the two). Paths are workspace-relative; '/' is the workspace root."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "One file, e.g. '/src/App.jsx'",
            },
            "paths": {
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "minItems": 1,
                "maxItems": MAX_PATHS,
                "description": "Several files",
            },
        },
        "additionalProperties": False,
        "oneOf": [{"required": ["path"]}, {"required": ["paths"]}],
    },
)

Status = Literal["ok", "truncated", "binary", "missing", "refused", "not_a_file", "skipped"]


@dataclass(frozen=True)
class ReadFileConfig:
    per_file_bytes: int = 256 * 1024
    per_batch_bytes: int = 1024 * 1024


@dataclass(frozen=True)
class FileReport:
    """What happened to one requested path."""

    path: str
    status: Status
    size: int = 0
    content: str | None = None
    note: str = ""


class ReadFile:
    """``read_file`` over one workspace."""

    name = NAME

    def __init__(self, workspace: Workspace, config: ReadFileConfig | None = None) -> None:
        self.workspace = workspace
        self.config = config or ReadFileConfig()

    async def execute(self, args: Mapping[str, Any]) -> ToolResult:
        requested = [args["path"]] if "path" in args else list(args["paths"])
        paths = list(dict.fromkeys(str(path) for path in requested))
        reports = await asyncio.to_thread(self._read_all, paths)
        text = "\n\n".join(render_report(report) for report in reports)
        data = {"files": [asdict(report) for report in reports]}
        ok = any(report.status in ("ok", "truncated", "binary") for report in reports)
        if ok:
            return ToolResult.success(text, data)
        return ToolResult(ok=False, text=text, data=data, error_kind="tool_execution_error")

    def _read_all(self, paths: list[str]) -> list[FileReport]:
        budget = self.config.per_batch_bytes
        reports: list[FileReport] = []
        for raw in paths:
            if budget <= 0:
                note = "batch limit reached (1 call reads at most "
                note += f"{self.config.per_batch_bytes} bytes); read it in another call"
                reports.append(FileReport(raw, "skipped", note=note))
                continue
            report = self._read_one(raw, budget)
            budget -= len(report.content.encode("utf-8")) if report.content else 0
            reports.append(report)
        return reports

    def _read_one(self, raw: str, budget: int) -> FileReport:
        try:
            resolved = self.workspace.resolve(raw, for_write=False)
        except PathRefused as refused:
            return FileReport(raw, "refused", note=refused.reason)
        shown = resolved.model_path
        try:
            info = os.stat(resolved.absolute)
        except FileNotFoundError:
            return FileReport(shown, "missing", note="no such file")
        except OSError as error:
            return FileReport(shown, "refused", note=f"cannot be read ({error.strerror})")
        if stat.S_ISDIR(info.st_mode):
            return FileReport(shown, "not_a_file", note="is a folder; use list_files")
        if not stat.S_ISREG(info.st_mode):
            return FileReport(shown, "not_a_file", note="is not a regular file")
        limit = min(self.config.per_file_bytes, budget)
        try:
            with open(resolved.absolute, "rb") as handle:
                data = handle.read(limit + 1)
        except OSError as error:
            return FileReport(shown, "refused", note=f"cannot be read ({error.strerror})")
        return decode_report(shown, data, info.st_size, limit, self.config.per_file_bytes)


def decode_report(shown: str, data: bytes, size: int, limit: int, per_file: int) -> FileReport:
    """Classify the bytes read: text (maybe cut at ``limit``) or binary."""
    cut = len(data) > limit
    head = data[:limit] if cut else data
    if b"\0" in head[:BINARY_SNIFF_BYTES]:
        return FileReport(shown, "binary", size, note="binary file, not shown")
    if cut:
        head = _whole_lines(_char_boundary(head))
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return FileReport(shown, "binary", size, note="not UTF-8 text, not shown")
    if not cut:
        return FileReport(shown, "ok", size, text)
    why = "per-file limit" if limit >= per_file else "batch limit"
    note = f"truncated at the {why}: showing the first {len(head)} of {size} bytes"
    return FileReport(shown, "truncated", size, text, note)


def _char_boundary(data: bytes) -> bytes:
    """Drop a UTF-8 sequence cut in the middle at the end of ``data``."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 == 0x80:
            continue  # a continuation byte: look further back for the lead byte
        need = 1 if byte < 0x80 else 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
        return data if need <= back else data[:-back]
    return data


def _whole_lines(data: bytes) -> bytes:
    newline = data.rfind(b"\n")
    return data[: newline + 1] if newline > 0 else data


def render_report(report: FileReport) -> str:
    """One file as the model reads it: a header line and, for text, a fenced body."""
    header = f"=== {report.path}"
    if report.status in ("ok", "truncated", "binary"):
        header += f" ({report.size} bytes)"
    if report.note:
        header += f" — {report.note}"
    header += " ==="
    if report.content is None:
        return header
    fence = "`" * max(3, _longest_backtick_run(report.content) + 1)
    body = (
        report.content
        if report.content.endswith("\n") or not report.content
        else report.content + "\n"
    )
    return f"{header}\n{fence}\n{body}{fence}"


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest
