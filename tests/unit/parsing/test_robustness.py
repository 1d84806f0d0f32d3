"""Never raises, never hangs, keeps every character: pathological replies.

(No timing assertions: bench/fuzz_parse.py and bench/parse.py print the figures. These
inputs used to be quadratic or recursive; a regression shows as a test that takes minutes.)
"""

from __future__ import annotations

import pytest

from parsing import StreamParser, find_snippets, parse_reply
from parsing.json.repair_fallback import MAX_REPAIR_CHARS, lost_characters, repair_last_resort
from tests.unit.parsing.support import assert_tiles, normalise

PATHOLOGICAL = {
    "open brackets": "[" * 10_000,
    "open braces": "{" * 200_000,
    "brace-quote": '{"' * 20_000,
    "deep valid": "[" * 3000 + "]" * 3000,
    "deep objects": '{"a":' * 2000 + "1" + "}" * 2000,
    "braces in prose": "some {x} prose [1] and {'a' b} " * 3000,
    "unterminated string": '{"a": "' + "x" * 300_000,
    "quotes": '"' * 50_000,
    "backticks": "```" * 30_000,
    "tags": "<think>" * 20_000 + "<tool_call>{" * 5_000,
    "fence of brackets": "```json\n" + "[" * 5000 + "\n```",
    "nul and surrogate-ish": '{"a": "\x00\\ud800"}' * 100,
    "lone backslash": '{"a": "\\',
    "comment to the end": '{"a": 1 /* never closed',
}


@pytest.mark.parametrize("text", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_pathological_input_is_parsed(text: str) -> None:
    blocks = parse_reply(text)
    assert_tiles(blocks, text)
    find_snippets(text)


@pytest.mark.parametrize(
    "text",
    [PATHOLOGICAL[k] for k in ("open brackets", "brace-quote", "deep objects", "braces in prose")],
)
def test_pathological_input_streams_the_same(text: str) -> None:
    parser, out = StreamParser(), []
    for i in range(0, len(text), 997):
        out += parser.feed(text[i : i + 997])
    out += parser.close()
    assert normalise(out) == normalise(parse_reply(text))


def test_deep_nesting_is_text_not_a_crash() -> None:
    text = "[" * 5000 + "]" * 5000
    assert [b.kind for b in parse_reply(text)] == ["text"]


def test_json_repair_refuses_large_and_deep_bodies() -> None:
    assert repair_last_resort('{"a": "' + "x" * MAX_REPAIR_CHARS + '" b}') is None
    assert repair_last_resort("[" * 1000) is None


def test_json_repair_budget_stops_it() -> None:
    code = 'print(\\"a\\", x) # ' * 700  # code in a string: json-repair's slow case
    body = '{"content": "' + code + '" "path": "a.py"' + ', "k": "v' * 10
    assert repair_last_resort(body, budget_calls=10**9) is not None
    assert repair_last_resort(body, budget_calls=1_000) is None


def test_fidelity_guard() -> None:
    raw = '{"content": "line one\\nline two \\u00e9", "n": 12, "ok": true}'
    assert not lost_characters(raw, {"content": "line one\nline two é", "n": 12, "ok": True})
    assert lost_characters(raw, {"content": "line one", "n": 12, "ok": True})
