"""Every reply of tests/fixtures/corpus/replies through the snippet layer (replies/SOURCES.md).

Each case lists the JSON values a correct extractor yields (value, origin, complete,
needs_repair; ``match`` exact or keys-only), text that must survive as text, and acceptable
alternatives. json-repair alone gets 51 of the 61.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from parsing import ActionBlock, find_snippets, parse_reply
from parsing.regions import Snippet
from tests.unit.parsing.support import assert_tiles, canon, corpus_dir, corpus_files, read_reply

CASES = corpus_files("replies")


def _matches(expected: dict[str, Any], got: Snippet) -> bool:
    if expected["match"] == "exact":
        same = canon(expected["value"]) == canon(got.value)
    else:
        want = expected["value"]
        same = isinstance(got.value, dict) and set(got.value) == set(want)
        same = same and all(v is None or canon(v) == canon(got.value[k]) for k, v in want.items())
    return (
        same
        and got.origin == expected["origin"]
        and got.complete == expected["complete"]
        and got.repaired == expected["needs_repair"]
    )


def test_corpus_is_present() -> None:
    assert len(list(corpus_dir("replies").glob("*.txt"))) == 61


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_snippet_layer_matches_expected(path: Path) -> None:
    text = read_reply(path)
    expected = json.loads(path.with_suffix(".expected.json").read_text(encoding="utf-8"))
    snippets = find_snippets(text)
    values = [s.value for s in snippets]
    alternatives = [canon(alt) for alt in expected["alternatives"]]
    if canon(values) not in alternatives:
        assert len(snippets) == len(expected["values"]), [canon(v) for v in values]
        for want, got in zip(expected["values"], snippets, strict=True):
            assert _matches(want, got), (want, got)
    blocks = parse_reply(text)
    assert_tiles(blocks, text)
    shown = "".join(b.text for b in blocks if b.kind == "text")
    for fragment in expected["text_contains"]:
        assert fragment in shown


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_snippet_spans_hold_their_value_text(path: Path) -> None:
    text = read_reply(path)
    pos = -1
    for s in find_snippets(text):
        assert pos <= s.start <= s.value_start < s.value_end <= s.end <= len(text)
        assert text[s.value_start] in "{["
        pos = s.end


def test_no_corpus_reply_without_action_becomes_an_action() -> None:
    for path in CASES:
        text = read_reply(path)
        if '"action"' not in text:
            assert not [b for b in parse_reply(text) if isinstance(b, ActionBlock)], path.stem
