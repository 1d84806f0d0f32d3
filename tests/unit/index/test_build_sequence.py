"""A full build writes each batch before it reads the next (issue 27, item 8, round 5):
reading and chunking the next batch while one was written kept two threads running Python at
once, whose hand-offs of the GIL cost CPU and gained no time (docs/retrieval.md)."""

from __future__ import annotations

from pathlib import Path

from actions.index import IndexConfig, open_index
from actions.paths import Workspace


async def test_each_batch_is_searchable_before_the_next_is_read(tmp_path: Path) -> None:
    for name in ("alpha", "beta", "gamma"):
        (tmp_path / f"{name}.md").write_text(f"# {name}\n\nThe {name} notes.\n")
    index = open_index(Workspace(tmp_path), config=IndexConfig(batch_documents=1))
    ready_before_each_batch: list[int] = []
    found_before_each_batch: list[list[str]] = []

    async def before_batch() -> None:  # the build awaits it before reading each batch
        ready_before_each_batch.append(index.store.counts()["ready"])
        hits = index.search_now("notes", 5, dense=False)
        found_before_each_batch.append(sorted(hit.chunk.document for hit in hits))

    index.yield_to(before_batch)
    report = await index.update_all()
    assert sorted(report.indexed) == ["alpha.md", "beta.md", "gamma.md"]
    assert ready_before_each_batch == [0, 1, 2]
    assert found_before_each_batch == [[], ["alpha.md"], ["alpha.md", "beta.md"]]
    assert (await index.status()).counts["ready"] == 3
    index.close()
