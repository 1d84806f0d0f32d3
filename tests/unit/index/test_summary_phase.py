"""The provider's summaries are asked with no index lock held (issue 14): what happens to a
document while its summary is pending — searchable, edited, restarted — with a summarizer
that answers only when the test lets it (``asyncio.Event``, no sleep)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from actions.index import open_index
from actions.index.indexer import WorkspaceIndex
from actions.index.markdown_elements import Element
from actions.index.model_summary import ModelSummarizer, SummariesUnavailable
from actions.paths import Workspace

TABLE = "| port | service |\n|---|---|\n| 22 | ssh |\n| 443 | https |"


class Gated:
    """Answers ``sentence`` once ``gate`` is set; ``asked`` is set at each question."""

    def __init__(self, sentence: str) -> None:
        self.sentence = sentence
        self.gate = asyncio.Event()
        self.asked = asyncio.Event()
        self.questions: list[str] = []

    async def summarize(self, element: Element, caption: str, document: str = "") -> str | None:
        self.questions.append(element.content)
        self.asked.set()
        await self.gate.wait()
        return self.sentence


def workspace(tmp_path: Path, table: str = TABLE) -> Path:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    (root / "ports.md").write_text(f"# Network\n\nOpen ports.\n\n{table}\n")
    (root / "notes.md").write_text("Nothing about lighthouses.\n")
    return root


def index_of(root: Path, summarizer: object) -> WorkspaceIndex:
    return open_index(Workspace(root), summarizer=summarizer, dense=False)  # type: ignore[arg-type]


async def test_other_files_are_indexed_while_a_summary_is_pending(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    gated = Gated("Lists the listening network services.")
    index = index_of(root, gated)
    build = asyncio.ensure_future(index.update_all())
    await gated.asked.wait()
    (root / "light.md").write_text("The lighthouse lamp is checked nightly.\n")
    report = await index.update_paths(["light.md"])  # the lock is not held by the summary
    assert report.indexed == ["light.md"]
    assert [hit.chunk.document for hit in await index.search("lighthouse lamp", 1)] == ["light.md"]
    assert (await index.status()).counts["chunked"] == 1
    assert not build.done()
    gated.gate.set()
    done = await build
    assert done.summarized == ["ports.md"]
    (hit,) = await index.search("listening services", 1)
    assert (hit.chunk.content, hit.chunk.summary) == (TABLE, gated.sentence)
    assert (await index.status()).counts == {"pending": 0, "chunked": 0, "ready": 3, "failed": 0}
    index.close()


async def test_a_document_edited_while_summarized_is_summarized_again(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    gated = Gated("Lists the listening network services.")
    index = index_of(root, gated)
    build = asyncio.ensure_future(index.update_all())
    await gated.asked.wait()
    edited = TABLE + "\n| 5432 | postgres |"
    (root / "ports.md").write_text(f"# Network\n\nOpen ports.\n\n{edited}\n")
    gated.gate.set()
    report = await build
    assert gated.questions == [TABLE, edited]  # the new table was asked about too
    assert report.summarized == ["ports.md"]
    (hit,) = await index.search("listening services", 1)
    assert hit.chunk.content == edited
    index.close()


async def test_a_build_stopped_mid_summary_is_finished_without_rechunking(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    stalled = Gated("never answered")
    first = index_of(root, stalled)
    build = asyncio.ensure_future(first.update_all(wait_summaries=False))
    await stalled.asked.wait()
    await build
    first.close()  # the process stops: ports.md stays chunked
    gated = Gated("Lists the listening network services.")
    gated.gate.set()
    again = index_of(root, gated)
    report = await again.update_all()
    assert report.indexed == []  # nothing re-read or re-chunked
    assert (sorted(report.unchanged), report.summarized) == (["notes.md", "ports.md"], ["ports.md"])
    (hit,) = await again.search("listening services", 1)
    assert hit.chunk.summary == gated.sentence
    assert (await again.status()).counts["ready"] == 2
    again.close()


async def test_a_summarizer_that_must_not_ask_says_why_in_status(tmp_path: Path) -> None:
    async def ask(prompt: str) -> str:
        raise SummariesUnavailable("the embedded model is not asked")

    root = workspace(tmp_path)
    summarizer = ModelSummarizer(ask, None, model="local")
    index = index_of(root, summarizer)
    await index.update_all()
    await index.update_all()
    status = await index.status()
    assert status.summaries == {"source": "fallback", "reason": "the embedded model is not asked"}
    assert status.counts["ready"] == 2
    assert summarizer.asked == 0
    index.close()
