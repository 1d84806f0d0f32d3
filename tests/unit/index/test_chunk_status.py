"""``with_embedding_status`` (a build marks every chunk pending, issue 27 item 8) is
``dataclasses.replace`` of the status: every other field kept, the chunk given unchanged."""

from __future__ import annotations

from dataclasses import fields, replace

from actions.index.model import Chunk, with_embedding_status


def test_a_chunk_marked_pending_keeps_every_other_field() -> None:
    chunk = Chunk(
        document="docs/a.md",
        position=3,
        type="table",
        content="| a |\n|---|\n| 1 |",
        indexed_text="docs/a.md\nA\nTable: a",
        summary="Table: a",
        is_atomic=True,
        headings=("A", "B"),
        start_line=4,
        end_line=6,
        language="",
        start_page=2,
        end_page=3,
        embedding_status="ready",
        embedding=(0.5, 0.25),
    )
    marked = with_embedding_status(chunk, "pending")
    assert marked == replace(chunk, embedding_status="pending")
    expected = {f.name: getattr(chunk, f.name) for f in fields(Chunk)} | {
        "embedding_status": "pending"
    }
    assert {f.name: getattr(marked, f.name) for f in fields(Chunk)} == expected
    assert chunk.embedding_status == "ready"  # the chunk given is unchanged
    assert hash(marked) == hash(replace(chunk, embedding_status="pending"))
