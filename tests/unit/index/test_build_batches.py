"""A full build writes each batch of documents together (issue 27, item 8): one document the
database refuses is recorded failed with the reason, and the rest of its batch is indexed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from markdown_it import MarkdownIt

from actions.index.markdown_elements import _blocks_only
from tests.unit.index.test_cli import agent_ls


def write_docs(root: Path, word: str) -> None:
    for name in ("a", "b", "c"):
        (root / f"{name}.md").write_text(f"# {name.upper()}\n\n{name}{word} is described here.\n")


def test_a_document_refused_in_a_batch_fails_alone(tmp_path: Path) -> None:
    write_docs(tmp_path, "first")
    first = agent_ls("index", "--workspace", str(tmp_path), "--json")
    assert first.returncode == 0, first.stderr
    database = sqlite3.connect(json.loads(first.stdout)["location"])
    database.execute(  # the database refuses b.md's chunks (as a full disk or a bad row would)
        "CREATE TRIGGER refuse BEFORE INSERT ON chunks WHEN NEW.document = 'b.md'"
        " BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
    )
    database.commit()
    database.close()
    write_docs(tmp_path, "second")
    again = agent_ls("index", "--workspace", str(tmp_path), "--json")
    assert again.returncode == 0, again.stderr
    result = json.loads(again.stdout)
    (failure,) = result["failures"]
    assert failure["path"] == "b.md"
    assert "refused by the test" in failure["reason"]
    assert result["documents"]["ready"] == 2
    for name in ("a", "c"):
        found = agent_ls("search", "--workspace", str(tmp_path), "--json", f"{name}second")
        assert json.loads(found.stdout)[0]["path"] == f"{name}.md"
    gone = agent_ls("search", "--workspace", str(tmp_path), "--json", "bfirst")
    assert "b.md" not in [hit["path"] for hit in json.loads(gone.stdout)]  # old chunks gone


TABLES = [
    "| a | b |\n|---|---|\n| 1 | 2 |\n\nafter",
    "| a | b |\n|---|---|\n| 1 | 2 |\n# heading right after",
    "| a | b |\n| - | :-: |\n| 1 | 2 | 3 | 4 |\n| 5 |\n> quote ends it",
    "text\n| a | b |\n|---|---|\n| 1 | 2 |",
    "a | b\n--- | ---\nc | d\n    indented\ne | f",
    "| x \\| y | z |\n|---|---|\n| 1 \\| 2 | 3 |\n```\ncode\n```",
    "- item\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n- next",
    "> | a | b |\n> |---|---|\n> | 1 | 2 |\nlazy | line",
    "| a |\n|---|---|\n| not a table |",
    "|a|b|\n|-|-|\n" + "||\n" * 50,
    "| only a header |\n|---|\n",
]


def test_tables_end_where_markdown_it_ends_them() -> None:
    """The lean table rule (no cell tokens) gives the full rule's blocks: every test of
    where a table stops (blank line, heading, quote, indented code, fence, lists)."""
    full = MarkdownIt("commonmark", {"html": True}).enable("table").disable("inline")
    for text in TABLES:
        expected = [(t.type, t.map) for t in full.parse(text) if t.level == 0]
        assert [(t.type, t.map) for t in _blocks_only().parse(text) if t.level == 0] == expected
