"""A GFM table rule for markdown-it-py that finds a table's lines without its cells.

Chunking only needs where a table starts and ends (``table_open``'s ``map``); markdown-it-py's
own ``table`` rule also pushes three tokens per cell (most of a markdown document's parse time
when it holds tables). ``lean_table`` decides whether a table starts with that rule itself
(``silent``: no token) and where it ends by the same tests as that rule's row loop (a
terminating block, a blank line, an indented code line, the cap on autocompleted cells), then
pushes ``table_open`` / ``table_close`` only. A row's cells are counted only once that cap
could be reached (a row autocompletes at most the header's count). The tokens of level 0 — all that
``markdown_elements`` reads — are the same as the full rule's.
"""

from __future__ import annotations

import sys

from markdown_it.common.utils import mdTrim
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.rules_block.table import escapedSplit, getLine, table

# markdown-it-py >= 3.0.0; the package's ``rules_block.table`` name is the function
MAX_AUTOCOMPLETED_CELLS = getattr(
    sys.modules["markdown_it.rules_block.table"], "MAX_AUTOCOMPLETED_CELLS", 0x10000
)


def lean_table(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """markdown-it's ``table`` rule, pushing only ``table_open`` and ``table_close``."""
    if not table(state, start, end, True):
        return False
    if silent:
        return True
    columns = _cells(mdTrim(getLine(state, start)))
    terminators = state.md.block.ruler.getRules("blockquote")
    parent, state.parentType = state.parentType, "table"
    autocompleted = 0  # of the rows in ``uncounted`` too: at most ``columns`` a row
    uncounted: list[str] = []
    line = start + 2
    while line < end and state.sCount[line] >= state.blkIndent:
        if any(rule(state, line, end, True) for rule in terminators):
            break
        text = mdTrim(getLine(state, line))
        if not text or state.is_code_block(line):
            break
        uncounted.append(text)
        if autocompleted + len(uncounted) * columns > MAX_AUTOCOMPLETED_CELLS:  # may be over
            autocompleted += sum(columns - _cells(row) for row in uncounted)
            uncounted.clear()
            if autocompleted > MAX_AUTOCOMPLETED_CELLS:
                break
        line += 1
    token = state.push("table_open", "table", 1)
    token.map = [start, line]
    state.push("table_close", "table", -1)
    state.parentType = parent
    state.line = line
    return True


def _cells(text: str) -> int:
    """How many cells a trimmed row holds (enclosing pipes dropped, ``\\|`` kept)."""
    cells = escapedSplit(text)
    return len(cells) - (bool(cells) and cells[0] == "") - (len(cells) > 1 and cells[-1] == "")
