"""Property: whatever the code, syntax chunks are the file's exact lines, in order, cover
every non-blank line, and never start inside a statement (here: inside a multi-line list)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from actions.index.source_chunks import chunk_source


def statement(indent: str, size: int, name: str) -> list[str]:
    if size == 1:
        return [f"{indent}{name} = 1"]
    items = [f"{indent}    {i}," for i in range(size - 2)]
    return [f"{indent}{name} = [", *items, f"{indent}]"]


@st.composite
def programs(draw: st.DrawFn) -> tuple[str, set[int]]:
    lines: list[str] = []
    inside: set[int] = set()  # 1-based lines that continue a statement

    def add(block: list[str]) -> None:
        start = len(lines) + 1
        lines.extend(block)
        inside.update(range(start + 1, start + len(block) - 1))  # a list's items and `]`

    for top in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["statement", "function", "class"]))
        if kind == "statement":
            add(statement("", draw(st.integers(1, 40)), f"v{top}"))
            continue
        indent = "    " if kind == "function" else "        "
        if kind == "class":
            lines.append(f"class C{top}:")
        for method in range(1 if kind == "function" else draw(st.integers(1, 4))):
            prefix = indent[4:]
            lines.append(f"{prefix}def f{top}_{method}(x):")
            for body in range(draw(st.integers(1, 6))):
                add(statement(indent, draw(st.integers(1, 30)), f"y{body}"))
        lines.append("")
    return "\n".join(lines) + "\n", inside


@settings(max_examples=60, deadline=None)
@given(programs(), st.integers(5, 40), st.integers(3, 60))
def test_syntax_chunks_are_exact_ordered_and_whole_statements(
    program: tuple[str, set[int]], window: int, max_def_lines: int
) -> None:
    text, inside = program
    elements = chunk_source(text, "python", window=window, max_def_lines=max_def_lines)
    lines = text.splitlines()
    covered: set[int] = set()
    for before, after in itertools.pairwise(elements):
        assert before.end_line < after.start_line
    for element in elements:
        assert element.content == "\n".join(lines[element.start_line - 1 : element.end_line])
        assert element.start_line not in inside, element
        covered.update(range(element.start_line, element.end_line + 1))
    assert {n for n, line in enumerate(lines, 1) if line.strip()} <= covered
