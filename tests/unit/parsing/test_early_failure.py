"""Where json's scanner fails at or just after a candidate's first key or string, read
without the scanner (`strict.early_failure`, `strict.lenient_failure`): the commonest
failures of JSON-like junk, whose `json.JSONDecodeError` cost about twice a read. Each
answer is the scanner's own."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parsing.json.snippets import _failure, _strict
from parsing.json.strict import (
    LENIENT,
    STRICT,
    early_failure,
    early_match,
    lenient_failure,
    strict_string,
)

SETTINGS = settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))
_PIECES = st.lists(
    st.sampled_from(
        [*'{}[]":,\\ \nabu/\t\x01\x1f', "\\u00", "\\u0041", "\\ud800", "\\udc00", "\\u12", "\\n"]
    ),
    max_size=24,
).map("".join)


def _scanner_failure(decoder: json.JSONDecoder, text: str) -> tuple[int, str] | None:
    try:
        decoder.scan_once(text, 0)  # type: ignore[attr-defined]
    except json.JSONDecodeError as exc:
        return exc.pos, exc.msg
    except (StopIteration, ValueError, RecursionError):
        return None
    return None


@SETTINGS
@given(st.sampled_from(["{", "[", "[[", "[{", "[ \n{ "]), _PIECES)
@example("[", '"a\\u12"')  # an escape json reads otherwise (not an unknown one)
@example("[", '"a\\qb"')  # an unknown escape: json fails at its backslash
@example("[", '"a\\\nb"')  # a backslash before a raw newline: the same
@example("[{", " a: 1}")  # no key: json fails at the letter
@example("{", '"\\ud800\\u12"')  # a high surrogate, then no low one
@example("[", '"ab" ]')  # an element, then its array's end
@example("{", '"ab" }')  # a key, then no colon
@example("[ ", '"ab"\n:')  # an element, then no comma
def test_an_early_failure_is_where_and_why_json_fails(opener: str, rest: str) -> None:
    text = opener + rest
    early = early_match(text, 0)
    if early is not None:
        assert early_failure(early) == _scanner_failure(STRICT, text)
    lenient = _scanner_failure(LENIENT, text)
    assert lenient_failure(text, 0) == (-1 if lenient is None else lenient[0])


def test_the_strict_pass_keeps_the_early_failure_for_the_passes_after_it() -> None:
    """`_strict` answers from the early failure as from the scanner's: the failure kept for
    the next passes, whether the lossless pass may fix it, and a key cut off by the end of a
    streamed text (pending: the word may still become a literal's or go on)."""
    assert _strict('["a\\q", 1]', 0) is True  # (a backslash: the lossless pass looks)
    assert _failure('["a\\q", 1]', 0) == (3, "Invalid \\escape")
    assert _strict("[{ ab: 1}]", 0) is False
    assert _failure("[{ ab: 1}]", 0) == (3, "Expecting property name enclosed in double quotes")
    assert _strict("[{ ab", 0, streaming=True) is None
    assert _strict("[{ ab", 0, streaming=False) is False


_BODY = st.lists(
    st.sampled_from(
        [*'"\\ \nabu/\x01', '\\"', "\\\\", "\\u00", "\\u0041", "\\ud800", "\\q", "a" * 30]
    ),
    max_size=16,
).map("".join)


@SETTINGS
@given(_BODY)
@example('a\\"b\\q"')  # an escaped quote, then an unknown escape
@example('\\"' + "a" * 58 + '\\u0041"')  # a valid escape cut by the end of the short stretch
def test_a_string_body_is_read_as_json_reads_it(body: str) -> None:
    """`strict_string` answers json's own string scanner: the body's value and end, or None
    where the scanner fails (also when the body's first quote is an escaped one)."""
    text = '["' + body
    try:
        value, end = json.decoder.scanstring(text, 2, True)  # type: ignore[attr-defined]
        expected: tuple[str, int] | None = (value, end)
    except json.JSONDecodeError:
        expected = None
    assert strict_string(text, 2) == expected
