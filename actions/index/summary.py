"""One-sentence summaries of tables and long code blocks (the "small" of small-to-big).

``fallback_summary`` is deterministic and always works: the caption (the short paragraph
right before the element, else the heading it sits under), then for a table its header row
and first rows, for code its language, first line and the names it defines — cut at
``MAX_SUMMARY`` characters. A ``Summarizer`` (for example the active LLM provider, wired by
the server) may replace it; when it fails or answers nothing, the fallback stays.
"""

from __future__ import annotations

import re
from typing import Protocol

from actions.index.markdown_elements import Element, split_lines

MAX_SUMMARY = 400
LONG_CODE_LINES = 30
_DEFINED = re.compile(
    r"^\s*(?:export\s+)?(?:async\s+)?(?:def|class|function|func|fn|struct|interface|type|const)"
    r"\s+([A-Za-z_][\w]*)",
    re.MULTILINE,
)


class Summarizer(Protocol):
    """Writes one sentence describing a table or code block, or ``None`` when it cannot
    (``caption``: the short paragraph above it, if any; ``document``: the file's path)."""

    async def summarize(self, element: Element, caption: str, document: str = "") -> str | None: ...


def needs_summary(element: Element) -> bool:
    """Tables always; code blocks longer than ``LONG_CODE_LINES`` lines."""
    if element.type == "table":
        return True
    return element.type == "code" and element.end_line - element.start_line + 1 > LONG_CODE_LINES


def fallback_summary(element: Element, caption: str = "") -> str:
    """The deterministic summary (see the module docstring)."""
    lead = caption.strip() or (element.headings[-1] if element.headings else "")
    lead = " ".join(lead.split()).rstrip(".:;")
    if element.type == "table":
        rows = [_cells(line) for line in split_lines(element.content)]
        rows = [row for row in rows if row and not _is_rule(row)]
        header = ", ".join(rows[0]) if rows else ""
        first = "; ".join(" | ".join(row) for row in rows[1:4])
        text = f"Table{': ' + lead if lead else ''}. Columns: {header}."
        if first:
            text += f" First rows: {first}."
        text += f" ({max(0, len(rows) - 1)} rows)"
    else:
        lines = [line.strip() for line in split_lines(element.content) if line.strip()]
        names = list(dict.fromkeys(_DEFINED.findall(element.content)))[:12]
        language = element.language or "code"
        text = f"{language} code block{': ' + lead if lead else ''}."
        if names:
            text += f" Defines {', '.join(names)}."
        if lines:
            text += f" Starts with: {lines[0]}"
    return _clip(" ".join(text.split()))


def _cells(line: str) -> list[str]:
    stripped = line.strip()
    if stripped.startswith("|"):
        stripped = stripped[1:]
    if stripped.endswith("|") and not stripped.endswith("\\|"):
        stripped = stripped[:-1]
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", stripped)]


def _is_rule(row: list[str]) -> bool:
    return all(re.fullmatch(r":?-{1,}:?", cell) for cell in row if cell) and any(row)


def _clip(text: str) -> str:
    if len(text) <= MAX_SUMMARY:
        return text
    cut = text.rfind(" ", 0, MAX_SUMMARY - 1)
    return text[: cut if cut > 0 else MAX_SUMMARY - 1] + "…"
