"""The lean table rule counts a row's cells only once markdown-it's cap on autocompleted cells
could be reached (issue 27 item 8); a table still ends where markdown-it ends it, the cap
reached or not."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from actions.index.markdown_elements import _blocks_only, parse_elements
from actions.index.markdown_table import MAX_AUTOCOMPLETED_CELLS

WIDE = "|" + "|".join(f"c{n}" for n in range(1000)) + "|\n|" + "-|" * 1000 + "\n"


@pytest.mark.parametrize(
    "text",
    [
        WIDE + "| x |\n" * 200 + "after",  # the cap reached: the table ends there
        WIDE + "| x |\n" * 60 + "after",  # just below it
        WIDE + ("|" + "y|" * 1000 + "\n") * 100 + "| x |\n" * 70,  # full rows first
        WIDE + ("|" + "y|" * 1200 + "\n") * 100 + "| x |\n" * 120,  # rows wider than the header
        "| a | b |\n|---|---|\n" + "| 1 |\n" * 70_000 + "tail",
    ],
)
def test_tables_end_where_markdown_it_ends_them_at_its_cell_cap(text: str) -> None:
    full = MarkdownIt("commonmark", {"html": True}).enable("table").disable("inline")
    expected = [(t.type, t.map) for t in full.parse(text) if t.level == 0]
    assert [(t.type, t.map) for t in _blocks_only().parse(text) if t.level == 0] == expected


def test_a_table_past_the_cap_is_cut_there() -> None:
    rows = MAX_AUTOCOMPLETED_CELLS // 999 + 10
    first, *rest = parse_elements(WIDE + "| x |\n" * rows)
    assert first.type == "table"
    assert first.end_line - first.start_line + 1 < rows  # the cap ends it, as markdown-it does
    assert rest
