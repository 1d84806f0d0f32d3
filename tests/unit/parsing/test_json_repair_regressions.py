"""The json-repair 0.64.5 regression inputs: each decoded correctly or flagged — never a
silently shortened string (tests/fixtures/corpus/json-repair-regressions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parsing import ActionBlock, find_snippets, parse_reply
from tests.unit.parsing.support import corpus_dir, corpus_files, read_reply

CASES = corpus_files("json-repair-regressions")


def _expected(path: Path) -> dict[str, object]:
    own = path.with_suffix(".expected.json")
    shared = path.parent / f"{path.stem.split('__')[0]}.expected.json"
    data = json.loads((own if own.exists() else shared).read_text(encoding="utf-8"))
    expected = data["expected"]
    assert isinstance(expected, dict)
    return expected


def test_regressions_are_present() -> None:
    assert len(list(corpus_dir("json-repair-regressions").glob("*.txt"))) == 6


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_decoded_exactly(path: Path) -> None:
    text = read_reply(path)
    [snippet] = find_snippets(text)
    assert snippet.value == _expected(path)
    assert not snippet.suspect


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_cut_off_documents_are_flagged(path: Path) -> None:
    """Missing final brace = cut off: the action is there but flagged, never complete."""
    text = read_reply(path)
    [snippet] = find_snippets(text)
    missing_brace = "missing" in path.stem or path.stem == "jr_strips_trailing_newline"
    assert snippet.truncated is missing_brace
    assert snippet.repaired
    for block in parse_reply(text):
        if isinstance(block, ActionBlock):
            assert block.truncated is missing_brace
            assert not block.suspect
