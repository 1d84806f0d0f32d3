"""A chunk's file counts beside the chunk (issue 27, round 7: small-to-big for BM25): of two
passages holding a question's words about as well, the one whose file is about the question
as a whole comes first. Both stores (PostgreSQL real) through `agent-ls search` with no model,
and the rule's parts."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from actions.index.file_prior import FILE_WEIGHT, FileCounts, FileWords, file_scores, with_files
from tests.unit.index.test_cli_dense import index, search

NO_MODEL = {"AGENT_LS_EMBEDDINGS": "0"}
QUERY = "how often is a failed request retried"
CLIENT = """# Client

## Limits

A failed request is retried up to three times, then its error is returned to you.

## Backoff

Each retry waits twice as long as the one before it: retried requests back off.

## Bodies

Only idempotent requests are retried; a retried request sends its body again.
"""
CHANGELOG = """# Changelog

## 2.1.0

A failed request is retried now, as the docs say.

## 2.0.0

The printer prints pages faster and tables render wider.

## 1.9.0

Fonts load lazily; the cache of glyphs is smaller.

## 1.8.0

Margins can be set per page, and headers repeat on each page.
"""
DOCS = {
    "client.md": CLIENT,
    "changelog.md": CHANGELOG,
    **{f"note{n}.md": f"# Note {n}\n\nRelease note {n}: the printer prints pages faster.\n"
       for n in range(8)},
}  # fmt: skip


def test_agent_ls_search_ranks_the_passage_of_the_file_about_the_question_first(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    # the changelog's line is shorter and BM25 alone ranked it first (7.85 against 7.68)
    for path, text in DOCS.items():
        (tmp_path / path).write_text(text)
    assert index(tmp_path, **NO_MODEL, **store_env)["chunks"] == 15
    found = search(tmp_path, QUERY, **NO_MODEL, **store_env)
    assert [(hit["path"], hit["startLine"]) for hit in found[:2]] == [
        ("client.md", 5),
        ("changelog.md", 5),
    ]


def test_a_file_is_scored_as_one_document() -> None:
    files = {"a.md": FileWords(10, {"retry": 3.0}), "b.md": FileWords(40, {"retry": 1.0})}
    scores = file_scores(files, {"retry": 2.0, "absent": 5.0}, average=20.0)
    assert scores["a.md"] == pytest.approx(2.0 * 3.0 * 2.2 / (3.0 + 1.2 * (0.25 + 0.75 * 0.5)))
    assert scores["b.md"] == pytest.approx(2.0 * 1.0 * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * 2.0)))


def test_the_best_file_adds_its_share_of_the_best_score() -> None:
    ranked = [("x", 10.0), ("y", 9.5), ("z", 1.0)]
    files = {"x": "b.md", "y": "a.md", "z": "a.md"}
    lifted = with_files(ranked, files.__getitem__, {"a.md": 4.0, "b.md": 1.0})
    assert [key for key, _ in lifted] == ["y", "x", "z"]
    assert dict(lifted)["y"] == pytest.approx(9.5 + FILE_WEIGHT * 10.0)
    assert dict(lifted)["x"] == pytest.approx(10.0 + FILE_WEIGHT * 10.0 / 4)
    assert with_files(ranked, files.__getitem__, {"a.md": 0.0}) == ranked  # no file evidence
    assert not math.isnan(with_files([("x", 0.0)], files.__getitem__, {"b.md": 1.0})[0][1])


def test_file_counts_are_read_once_and_dropped_when_written() -> None:
    reads: list[list[str]] = []

    def load(paths: list[str]) -> dict[str, FileWords[str]]:
        reads.append(paths)
        return {path: FileWords(1, {"w": 1.0}) for path in paths if path != "empty.md"}

    counts: FileCounts[str] = FileCounts()
    assert counts.get(["a.md", "empty.md"], load)["empty.md"] == FileWords(0, {})
    counts.get(["a.md", "b.md"], load)
    assert reads == [["a.md", "empty.md"], ["b.md"]]
    counts.drop(["a.md"])
    counts.get(["a.md", "b.md"], load)
    assert reads[-1] == ["a.md"]
    counts.clear()
    counts.get(["b.md"], load)
    assert reads[-1] == ["b.md"]
