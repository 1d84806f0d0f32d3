"""The lossless pass on a value inside a longer text (`lossless_at`): where it answers, it
reads exactly what the strict and tolerant passes read; where they might differ it refuses."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsing.json.lossless import lossless_at
from parsing.json.snippets import strict_at
from parsing.json.tolerant import Decoded, parse_tolerant

PROSE = "Here it is: "
AFTER = " and more {x} prose ] } after"

ANSWERED = [
    '{"a": 1,}',
    '[1, [2, 3,], {"b": null,},]',
    '{"a": True, "b": [None, False]}',
    '{ // note\n "a": "x"}',
    '{"a": /* c */ 1}',
    '{"code": "line1\nline2\tend", "n": 2}',
    '{"s": "a } ] ``` </tool_call> \\" b",}',
    '{"a": "é ü 😀",}',
    '{"a": "raw\nnewline, then back\\\nslash, \\\\\ttab",}',  # backslash, raw newline
    '{"a": "back\\\nslash first, then\tthe rest",}',
]
REFUSED = [
    '{"a": "x", // c\n "b": 1}',  # comment after a comma that follows a string
    '{"a": "x", "b" /* c */ : 1}',  # comment between a key and its colon
    '{"a": "x", "k\ney": 1,}',  # raw newline in a key
    '{"a": 1.5,}',  # floats are left to the other passes
    '{"a": "x ``` y" // ```\n,}',  # a comment holding a fence
    '{"a": "cut',
    '{"a": "x" "b"}',
]


@pytest.mark.parametrize("body", ANSWERED)
def test_answers_like_the_tolerant_pass(body: str) -> None:
    text = PROSE + body + AFTER
    i = len(PROSE)
    fast = lossless_at(text, i)
    assert fast is not None
    tolerant = parse_tolerant(text, i)
    assert isinstance(tolerant, Decoded)
    assert fast == (tolerant.value, tolerant.end, tolerant.fixes)
    assert fast[1] == i + len(body)


@pytest.mark.parametrize("body", REFUSED)
def test_refuses_where_the_readings_may_differ(body: str) -> None:
    assert lossless_at(PROSE + body + AFTER, len(PROSE)) is None


def test_a_value_longer_than_the_first_window() -> None:
    body = json.dumps({"content": "x = [1, 2]\n" * 3000})[:-1] + ",}"
    text = PROSE + body + AFTER
    fast = lossless_at(text, len(PROSE))
    assert fast is not None
    assert fast[1] == len(PROSE) + len(body)
    assert fast[2] == {"trailing_comma"}


_KEY = st.sampled_from(['"a"', '"b\nc"', '"k\t"', '"q\\""'])
_VALUE = st.sampled_from(
    ['"v"', '"l1\nl2"', "True", "None", "1", "-0", "1e400", '"a "b" c"', '"\\d"', '"}"', "[1,]"]
)
_SEP = st.sampled_from([",", ",\n", ",,", "", " // c\n", " /* c */ ", ",//x\n"])


@st.composite
def objects(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        colon = draw(st.sampled_from([":", " :", " /*c*/ :"]))
        parts.append(draw(_KEY) + colon + draw(_VALUE) + draw(_SEP))
    return "{" + "".join(parts) + draw(st.sampled_from(["}", "", "]", ",}"]))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(objects(), st.sampled_from(["", AFTER, "\n```"]))
def test_agrees_with_strict_then_tolerant(body: str, after: str) -> None:
    text = PROSE + body + after
    i = len(PROSE)
    fast = lossless_at(text, i)
    if fast is None:
        return
    strict = strict_at(text, i)
    if strict is not None:
        assert fast == (strict[0], strict[1], frozenset())
        return
    tolerant = parse_tolerant(text, i)
    assert isinstance(tolerant, Decoded)
    assert fast == (tolerant.value, tolerant.end, tolerant.fixes)


def test_fenced_backslash_before_a_raw_newline_stays_a_backslash() -> None:
    """A raw tab, then a backslash right before a raw newline: the lossless pass keeps the
    backslash as a character and the newline as a newline (it once produced the text
    "\\u000a"), exactly like the tolerant pass."""
    from parsing import find_snippets

    body = '{"code": "a\tb \\\nc"}'
    (snippet,) = find_snippets("```json\n" + body + "\n```")
    assert snippet.value == {"code": "a\tb \\\nc"}
    (bare,) = find_snippets("x " + body)
    assert bare.value == snippet.value
