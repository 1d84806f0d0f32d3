"""Where strict JSON failed, the lossless pass is skipped when it surely answers None
(`snippets._lossless_fails`, `lossless.fails_at`): on every input it says so, `lossless_at`
does answer None, and where the lossless pass fixes the text it is never skipped."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsing.json.lossless import lossless_at
from parsing.json.snippets import _lossless_fails, _strict

# JSON-like pieces: the fixable malformations (raw controls in strings, trailing commas,
# comments, Python literals, a backslash before a raw newline) among junk
PIECES = [
    *'{}[]":,\\ \nab\t\x01/',
    "//",
    "/*",
    "*/",
    "True",
    "None",
    "null",
    "1",
    "-2.5",
    ",]",
    ",}",
    '"a":',
    '"\\n"',
    "\\u00e9",
    "\\\n",
    "'",
]


def _skipped(text: str, i: int) -> bool:
    """The strict pass failed at a character the lossless pass may fix, and the skip
    predicate says it fails all the same."""
    return _strict(text, i) is True and _lossless_fails(text, i)


@settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.sampled_from("{["),
    st.lists(st.sampled_from(PIECES), max_size=40),
    st.sampled_from(["", "see "]),
)
def test_a_skipped_lossless_pass_answers_none(opener: str, pieces: list[str], prose: str) -> None:
    text = prose + opener + "".join(pieces)
    i = len(prose)
    if _skipped(text, i):
        assert lossless_at(text, i) is None


@pytest.mark.parametrize(
    "body",
    [
        '{"a": "raw\nnewline", "b": [1,],}',  # a raw newline, then trailing commas
        '["x\ny", True, None] tail',  # a raw newline, then Python literals
        '{"a": "x\ny", "b": 1 /* c */}',  # a raw newline, then a comment
        '["back\\\nslash\n",]',  # a backslash before a raw newline
        "[1, 2,\n]",  # a closer after a comma
    ],
)
def test_the_lossless_pass_runs_where_it_fixes(body: str) -> None:
    assert lossless_at(body, 0) is not None
    assert not _skipped(body, 0)


@pytest.mark.parametrize(
    "body",
    [
        '["a\nb" x]',  # a raw newline, then a character no fix applies to
        '["a\nb"}',  # then a closer of the wrong kind
        '{"a": "x\ny", "b": "cut',  # then a string cut off by the end of the text
        "[}",  # a closer not after a comma
        '["\\a"]',  # an unknown escape of a printable character
    ],
)
def test_skipped_where_no_fix_applies(body: str) -> None:
    assert _skipped(body, 0)
    assert lossless_at(body, 0) is None


def test_valid_json_is_never_skipped() -> None:
    text = json.dumps({"a": ["x", 1, {"b": None}]})
    assert _strict(text, 0) == (json.loads(text), len(text))
