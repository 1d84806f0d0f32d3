"""The ``read_file`` tool: one file (``path``) or a batch (``paths``), whole or a line range.

- Each path goes through workspace confinement; a refused, missing, directory, special or
  binary file is reported for that path alone — the rest of the batch is still read.
- ``start_line`` / ``end_line`` (1-based, inclusive; with ``path``, or per item of ``paths``
  as ``{"path", "start_line", "end_line"}``) read a range; ranged output is numbered
  (``cat -n`` style: number, tab, line) and says which lines of how many it shows.
- A file (or range) larger than ``per_file_bytes`` (256 KB) comes back as its first page of
  whole lines, numbered, with a note naming the ``start_line`` to ask for the rest; once the
  batch has used ``per_batch_bytes`` (1 MB) the remaining files are skipped with a notice
  telling the model to read them in another call. Nothing is ever cut silently.
- Binary files (a NUL byte in the first 8 KB, or invalid UTF-8) are reported, not dumped.
- The result is ok when at least one file was read (binary counts as an answer).
- With a `BufferSource` (the editor's buffers: an ACP client's fs/read_text_file, an LSP
  client's open documents) an existing text file is read as the editor shows it, unsaved
  changes included; an editor that answers an error leaves the disk read, with a note.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import os
import stat
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, BinaryIO, Literal

from actions.buffers import MAX_BUFFER_BYTES, BufferRead, BufferSource, read_buffer
from actions.errors import InvalidToolCall, PathRefused
from actions.paths import PathResolver
from actions.tools.base import Tool, ToolResult
from actions.tools.line_reader import Line, LineReader
from actions.update_edits import NUMBERED

NAME = "read_file"
MAX_PATHS = 50
BINARY_SNIFF_BYTES = 8192

_LINE_ARGS: dict[str, Any] = {
    "start_line": {
        "type": "integer",
        "minimum": 1,
        "description": "First line to read (1-based); output is then numbered",
    },
    "end_line": {
        "type": "integer",
        "minimum": 1,
        "description": "Last line to read (inclusive); default: to the end or the size limit",
    },
}

MANIFEST = Tool(
    name=NAME,
    description=(
        "Read the content of files. Give 'path' for one file or 'paths' for several "
        "(exactly one of the two). Paths are workspace-relative; '/' is the workspace root. "
        "For part of a file give start_line / end_line (with 'path', or per item of 'paths' "
        'as {"path", "start_line", "end_line"}): the lines come back numbered. A file '
        "over the size limit comes back as its first page with the start_line of the rest."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": {
                "type": "string",
                "minLength": 1,
                "description": "One file, e.g. '/src/App.jsx'",
            },
            **_LINE_ARGS,
            "paths": {
                "type": "array",
                "items": {
                    "type": ["string", "object"],
                    "minLength": 1,
                    "properties": {"path": {"type": "string", "minLength": 1}, **_LINE_ARGS},
                    "required": ["path"],
                    "additionalProperties": False,
                },
                "minItems": 1,
                "maxItems": MAX_PATHS,
                "description": "Several files: paths, or {path, start_line, end_line} objects",
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
    """What happened to one requested path; ``first_line`` > 0 when ``content`` is a range
    (``first_line``..``last_line`` of ``total_lines``), shown numbered."""

    path: str
    status: Status
    size: int = 0
    content: str | None = None
    note: str = ""
    first_line: int = 0
    last_line: int = 0
    total_lines: int = 0


@dataclass(frozen=True)
class ReadRequest:
    """One path to read, whole (no lines given) or a 1-based inclusive line range."""

    path: str
    start_line: int | None = None
    end_line: int | None = None

    @property
    def ranged(self) -> bool:
        return self.start_line is not None or self.end_line is not None


def read_requests(args: Mapping[str, Any]) -> list[ReadRequest]:
    """The requests of a call (InvalidToolCall for line ranges that cannot be read)."""
    if "path" in args:
        items: list[Any] = [args]
    else:
        if "start_line" in args or "end_line" in args:
            raise InvalidToolCall(
                NAME,
                "args.start_line",
                'with "paths", give lines per file: {"path": ..., "start_line": ...}',
            )
        items = list(args["paths"])
    requests = []
    for index, item in enumerate(items):
        if isinstance(item, str):
            item = {"path": item}
        request = ReadRequest(str(item["path"]), item.get("start_line"), item.get("end_line"))
        if request.start_line and request.end_line and request.end_line < request.start_line:
            where = "args" if "path" in args else f"args.paths[{index}]"
            raise InvalidToolCall(NAME, f"{where}.end_line", "must be >= start_line")
        requests.append(request)
    return list(dict.fromkeys(requests))


class ReadFile:
    """``read_file`` over one workspace."""

    name = NAME

    def __init__(
        self,
        workspace: PathResolver,
        config: ReadFileConfig | None = None,
        *,
        buffers: BufferSource | None = None,
    ) -> None:
        self.workspace = workspace
        self.config = config or ReadFileConfig()
        self.buffers = buffers

    async def execute(self, args: Mapping[str, Any]) -> ToolResult:
        requests = read_requests(args)
        buffered = await self._buffered(requests)
        reports = await asyncio.to_thread(self._read_all, requests, buffered)
        text = "\n\n".join(render_report(report) for report in reports)
        data = {"files": [asdict(report) for report in reports]}
        ok = any(report.status in ("ok", "truncated", "binary") for report in reports)
        if ok:
            return ToolResult.success(text, data)
        return ToolResult(ok=False, text=text, data=data, error_kind="tool_execution_error")

    async def _buffered(self, requests: list[ReadRequest]) -> dict[str, BufferRead]:
        """The editor's text of each requested existing text file, by requested path."""
        if self.buffers is None:
            return {}
        files = await asyncio.to_thread(self._text_files, requests)
        return {path: await read_buffer(self.buffers, absolute) for path, absolute in files}

    def _text_files(self, requests: list[ReadRequest]) -> list[tuple[str, Path]]:
        """The requested paths that are confined, regular, not binary and small enough to
        ask the editor for."""
        found: dict[str, Path] = {}
        for request in requests:
            try:
                absolute = self.workspace.resolve(request.path, for_write=False).absolute
                with open(absolute, "rb") as handle:
                    info = os.fstat(handle.fileno())
                    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BUFFER_BYTES:
                        continue
                    if b"\0" not in handle.read(BINARY_SNIFF_BYTES):
                        found.setdefault(request.path, absolute)
            except (PathRefused, OSError):
                continue  # reported as it is when the file itself is read
        return list(found.items())

    def _read_all(
        self, requests: list[ReadRequest], buffered: Mapping[str, BufferRead]
    ) -> list[FileReport]:
        budget = self.config.per_batch_bytes
        reports: list[FileReport] = []
        for request in requests:
            if budget <= 0:
                note = "batch limit reached (1 call reads at most "
                note += f"{self.config.per_batch_bytes} bytes); read it in another call"
                reports.append(FileReport(request.path, "skipped", note=note))
                continue
            report = self._read_one(request, budget, buffered.get(request.path))
            budget -= len(report.content.encode("utf-8")) if report.content else 0
            reports.append(report)
        return reports

    def _read_one(
        self, request: ReadRequest, budget: int, buffered: BufferRead | None = None
    ) -> FileReport:
        try:
            resolved = self.workspace.resolve(request.path, for_write=False)
        except PathRefused as refused:
            return FileReport(request.path, "refused", note=refused.reason)
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
        if buffered is not None and buffered.text is not None:
            return self._read_text(shown, request, buffered.text.encode("utf-8"), limit)
        report = self._read_disk(resolved.absolute, shown, request, (info.st_size, limit))
        if buffered is not None and buffered.note:
            note = f"{report.note}; {buffered.note}" if report.note else buffered.note
            report = dataclasses.replace(report, note=note)
        return report

    def _read_text(self, shown: str, request: ReadRequest, data: bytes, limit: int) -> FileReport:
        """A file as the editor shows it."""
        if request.ranged or len(data) > limit:
            return read_page(data, shown, request, limit, self._why(limit))
        return decode_report(shown, data, len(data))

    def _read_disk(
        self, absolute: Path, shown: str, request: ReadRequest, sizes: tuple[int, int]
    ) -> FileReport:
        size, limit = sizes
        try:
            if request.ranged or size > limit:
                return read_page(absolute, shown, request, limit, self._why(limit))
            with open(absolute, "rb") as handle:
                data = handle.read(limit + 1)
        except OSError as error:
            return FileReport(shown, "refused", note=f"cannot be read ({error.strerror})")
        if len(data) > limit:  # the file grew since stat: read it as a page
            return read_page(absolute, shown, request, limit, self._why(limit))
        return decode_report(shown, data, size)

    def _why(self, limit: int) -> str:
        return "per-file limit" if limit >= self.config.per_file_bytes else "batch limit"


def decode_report(shown: str, data: bytes, size: int) -> FileReport:
    """A whole file's bytes: text, or binary."""
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return FileReport(shown, "binary", size, note="binary file, not shown")
    try:
        return FileReport(shown, "ok", size, data.decode("utf-8"))
    except UnicodeDecodeError:
        return FileReport(shown, "binary", size, note="not UTF-8 text, not shown")


def read_page(
    source: Path | bytes, shown: str, request: ReadRequest, limit: int, why: str
) -> FileReport:
    """The requested lines (whole file by default) that fit in ``limit`` bytes, numbered;
    ``why`` names the limit in the note. The file (or the editor's text, as bytes) is read
    in bounded blocks: a line longer than the limit contributes its first ``limit`` bytes
    and the note says it was cut."""
    start = request.start_line or 1
    end = request.end_line
    chunks: list[bytes] = []
    used = last = 0
    cut = False
    long_line: Line | None = None
    with _opened(source) as handle:
        size = len(source) if isinstance(source, bytes) else os.fstat(handle.fileno()).st_size
        if b"\0" in handle.read(BINARY_SNIFF_BYTES):
            return FileReport(shown, "binary", size, note="binary file, not shown")
        handle.seek(0)
        reader = LineReader(handle, limit)
        for line in reader:
            if line.number < start:
                continue
            if end is not None and line.number > end:
                break
            if used + line.length > limit:
                cut = True
                if not chunks:  # the first line asked for is longer than the limit
                    long_line = line
                    chunks.append(_char_boundary(line.head))
                    last = line.number
                break
            chunks.append(line.head)
            used += line.length
            last = line.number
        reader.count_rest()
        total = reader.read_lines
    if start > max(total, 1):
        note = f"start_line {start} is past the end of the file ({total} lines)"
        return FileReport(shown, "refused", size, note=note, total_lines=total)
    try:
        text = b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        return FileReport(shown, "binary", size, note="not UTF-8 text, not shown")
    report = _page_report(shown, size, text, (start, last, total), cut, why)
    if long_line is None:
        return report
    note = (
        f"lines {start}-{last} of {total}; line {long_line.number} is {long_line.length} bytes "
        f"long: cut after its first {len(chunks[0])} bytes (the {why})"
    )
    if last < min(end or total, total):
        note += f"; read the next lines with start_line {last + 1}"
    return dataclasses.replace(report, status="truncated", note=note)


def _opened(source: Path | bytes) -> BinaryIO:
    return io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")


def _page_report(
    shown: str, size: int, text: str, lines: tuple[int, int, int], cut: bool, why: str
) -> FileReport:
    start, last, total = lines
    status: Status = "truncated" if cut else "ok"
    note = f"lines {start}-{last} of {total}"
    if cut:
        note += (
            f"; cut at the {why}: showing {len(text.encode())} of {size} bytes; read the rest "
            f"with start_line {last + 1 if last >= start else start}"
        )
    return FileReport(shown, status, size, text, note, start, max(last, start - 1), total)


def _char_boundary(data: bytes) -> bytes:
    """Drop a UTF-8 sequence cut in the middle at the end of ``data``."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 == 0x80:
            continue  # a continuation byte: look further back for the lead byte
        need = 1 if byte < 0x80 else 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
        return data if need <= back else data[:-back]
    return data


def render_report(report: FileReport) -> str:
    """One file as the model reads it: a header line and, for text, a fenced body (numbered
    lines when it is a range or a page)."""
    header = f"=== {report.path}"
    if report.status in ("ok", "truncated", "binary"):
        header += f" ({report.size} bytes)"
    if report.note:
        header += f" — {report.note}"
    header += " ==="
    if report.content is None:
        return header
    body = report.content
    if report.first_line:
        rows = body.split("\n")
        if rows and rows[-1] == "":
            rows.pop()
        body = "\n".join(
            NUMBERED.format(number=number, line=row.removesuffix("\r"))
            for number, row in enumerate(rows, start=report.first_line)
        )
    fence = "`" * max(3, _longest_backtick_run(body) + 1)
    if body and not body.endswith("\n"):
        body += "\n"
    return f"{header}\n{fence}\n{body}{fence}"


def _longest_backtick_run(text: str) -> int:
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest
