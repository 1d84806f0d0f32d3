"""Split a source file into chunks for retrieval (SPEC §10).

Python, JavaScript, TypeScript, Go, Rust, Java, C, C++, Ruby and shell are cut by their syntax
tree (``syntax_chunks``: one chunk per definition, headed by its kind, name, enclosing
definitions and signature; never mid-statement). Every other language is cut into windows of
``window`` lines overlapping by ``overlap`` lines.

``content`` is always the exact source lines, ``start_line`` / ``end_line`` 1-based inclusive.
"""

from __future__ import annotations

from collections.abc import Sequence

from actions.index.markdown_elements import Element, split_lines, strip_last_eol
from actions.index.syntax_chunks import syntax_chunks

WINDOW = 60
OVERLAP = 10
MAX_DEF_LINES = 150

LANGUAGES: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".swift": "swift",
    ".scala": "scala",
    ".sh": "shell",
    ".bash": "shell",
    ".lua": "lua",
    ".sql": "sql",
}


def chunk_source(
    text: str,
    language: str,
    *,
    window: int = WINDOW,
    overlap: int = OVERLAP,
    max_def_lines: int = MAX_DEF_LINES,
) -> list[Element]:
    """Chunks of a source file (see the module docstring)."""
    lines = split_lines(text)
    by_syntax = syntax_chunks(text, lines, language, window, max_def_lines)
    if by_syntax is not None:
        return by_syntax
    return line_windows(lines, 1, len(lines), (), language, window, overlap)


def line_windows(
    lines: Sequence[str],
    first: int,
    last: int,
    path: tuple[str, ...],
    language: str,
    window: int = WINDOW,
    overlap: int = OVERLAP,
) -> list[Element]:
    """Windows of ``window`` lines over ``first..last`` (1-based), blank edges trimmed."""
    while first <= last and not lines[first - 1].strip():
        first += 1
    while last >= first and not lines[last - 1].strip():
        last -= 1
    chunks: list[Element] = []
    start = first
    step = max(1, window - overlap)
    while start <= last:
        end = min(last, start + window - 1)
        chunks.append(_lines_element(lines, start, end, path, language))
        if end == last:
            break
        start += step
    return chunks


def _lines_element(
    lines: Sequence[str],
    first: int,
    last: int,
    path: tuple[str, ...],
    language: str,
    *,
    atomic: bool = False,
) -> Element:
    text = strip_last_eol("".join(lines[first - 1 : last]))
    return Element("code", text, first, last, path, language, atomic)
