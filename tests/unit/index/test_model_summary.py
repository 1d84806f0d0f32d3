"""ModelSummarizer: bounded, cached by content hash, falls back (None) on any trouble."""

from __future__ import annotations

import asyncio
from pathlib import Path

from actions.index.markdown_elements import Element
from actions.index.model_summary import ModelSummarizer, clean

TABLE = Element("table", "| a | b |\n|---|---|\n| 1 | 2 |", 3, 5, ("Guide",), "", True)


async def test_answers_are_cleaned_and_cached_across_instances(tmp_path: Path) -> None:
    questions: list[str] = []

    async def ask(prompt: str) -> str:
        questions.append(prompt)
        return '<think>hmm</think> Summary: "Maps letters to numbers."\n'

    first = ModelSummarizer(ask, tmp_path / "cache.sqlite3", model="m")
    assert await first.summarize(TABLE, "", "docs/a.md") == "Maps letters to numbers."
    first.close()
    again = ModelSummarizer(ask, tmp_path / "cache.sqlite3", model="m")  # a restart
    assert await again.summarize(TABLE, "", "docs/a.md") == "Maps letters to numbers."
    assert len(questions) == 1
    assert "docs/a.md" in questions[0]
    assert "Section: Guide" in questions[0]
    other = ModelSummarizer(ask, tmp_path / "cache.sqlite3", model="another model")
    await other.summarize(TABLE, "", "docs/a.md")
    assert len(questions) == 2  # the cache key holds the model


async def test_errors_and_timeouts_give_none_then_it_pauses(tmp_path: Path) -> None:
    calls = 0

    async def broken(prompt: str) -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            await asyncio.Event().wait()  # never answers: the timeout ends it
        raise ConnectionError("refused")

    summarizer = ModelSummarizer(broken, None, model="m", timeout=0.05, max_failures=3)
    results = [await summarizer.summarize(TABLE, "") for _ in range(5)]
    assert results == [None] * 5
    assert calls == 3  # paused after three failures in a row


async def test_at_most_concurrency_questions_at_once() -> None:
    running = 0
    peak = 0
    release = asyncio.Event()
    two_running = asyncio.Event()

    async def ask(prompt: str) -> str:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        if running == 2:
            two_running.set()
        await release.wait()
        running -= 1
        return "A table."

    summarizer = ModelSummarizer(ask, None, model="m", concurrency=2)
    elements = [Element("table", f"| n |\n|---|\n| {i} |", 1, 3, (), "", True) for i in range(6)]
    tasks = [asyncio.ensure_future(summarizer.summarize(e, "")) for e in elements]
    await asyncio.wait_for(two_running.wait(), 5)
    for _ in range(50):  # let every waiting task run: a third question would start now
        await asyncio.sleep(0)
    assert (running, summarizer.asked) == (2, 2)
    release.set()
    assert await asyncio.gather(*tasks) == ["A table."] * 6
    assert peak == 2


def test_clean_keeps_one_bounded_line() -> None:
    assert clean("  'One line.'  ") == "One line."
    assert len(clean("word " * 500)) <= 400
    assert clean("<think>only thoughts</think>") == ""
