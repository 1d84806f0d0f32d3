"""Split a source file into chunks for retrieval (SPEC §10).

Python is cut by definitions with the standard ``ast`` module: each top-level function or
class (decorators included) is one chunk whose ``headings`` is its name; a class longer than
``max_lines`` is cut into its methods (``("Class", "method")``) plus the class header. The code
between definitions (imports, constants) is cut by lines. Every other language, and Python
that does not parse, is cut into windows of ``window`` lines overlapping by ``overlap`` lines.

``content`` is always the exact source lines, ``start_line`` / ``end_line`` 1-based inclusive.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Sequence

from actions.index.markdown_elements import Element, split_lines, strip_last_eol

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
    ".tsx": "typescript",
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
    if language == "python":
        tree = _parse_python(text)
        if tree is not None:
            return _python_chunks(tree, lines, language, window, overlap, max_def_lines)
    return line_windows(lines, 1, len(lines), (), language, window, overlap)


def _parse_python(text: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes in old code
            return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _span(node: Definition) -> tuple[int, int]:
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first, node.end_lineno or node.lineno


def _python_chunks(
    tree: ast.Module,
    lines: Sequence[str],
    language: str,
    window: int,
    overlap: int,
    max_def_lines: int,
) -> list[Element]:
    chunks: list[Element] = []
    cursor = 1
    for node in tree.body:
        if not isinstance(node, Definition):
            continue
        first, last = _span(node)
        chunks += line_windows(lines, cursor, first - 1, (), language, window, overlap)
        chunks += _definition(node, lines, (), language, window, overlap, max_def_lines)
        cursor = last + 1
    chunks += line_windows(lines, cursor, len(lines), (), language, window, overlap)
    return chunks


def _definition(
    node: Definition,
    lines: Sequence[str],
    outer: tuple[str, ...],
    language: str,
    window: int,
    overlap: int,
    max_def_lines: int,
) -> list[Element]:
    first, last = _span(node)
    path = (*outer, node.name)
    if last - first + 1 <= max_def_lines:
        return [_lines_element(lines, first, last, path, language, atomic=True)]
    if not isinstance(node, ast.ClassDef):
        return line_windows(lines, first, last, path, language, window, overlap)
    chunks: list[Element] = []
    cursor = first
    for child in node.body:
        if not isinstance(child, Definition):
            continue
        start, end = _span(child)
        chunks += line_windows(lines, cursor, start - 1, path, language, window, overlap)
        chunks += _definition(child, lines, path, language, window, overlap, max_def_lines)
        cursor = end + 1
    chunks += line_windows(lines, cursor, last, path, language, window, overlap)
    return chunks


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
