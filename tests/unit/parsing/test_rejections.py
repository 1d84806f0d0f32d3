"""The tolerant pass's rejections decided before it runs (issue 21 item 10): each shortcut
answers what the pass answers, in a whole reply and in a streamed one."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parsing.json.scan import NeedMore
from parsing.json.shortcuts import bracket_prefix_reject
from parsing.json.snippets import _failure, _strict
from parsing.json.tolerant import Rejected, parse_tolerant

_PREFIX = st.lists(st.sampled_from([*"[]{},", " ", "\n", "\t", "\r", "[]", "{}", "[{}, "]))
_AT = st.sampled_from(
    [*":,\\{}[]\"'ab", "true", "None", "tr", "x1", "-1", "1", "/", "//c\n", "\x0b", "é", ""]
)
_REST = st.lists(st.sampled_from([*'{}[]":,\\ \nab', "true", "]]", '"x"']), max_size=8)


@settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from("{["), _PREFIX, _AT, _REST, st.booleans())
@example("{", [" "], "a", [":", "1", "}"], True)  # a letter after ``{``: an unquoted key
@example("{", [], "a", [" ", "b"], True)  # a word that is no key: rejected
@example("{", [], "ab", [], False)  # a word cut off by the end of a streamed text
@example("[", [], "tr", [], False)  # a literal cut off by the end of a streamed text
@example("[", [], "true", ["]"], True)  # a literal
@example("[", ["[]"], "a", [], True)  # a letter after a closer: rejected
@example("[", ["[", "{}", ","], ":", [], False)
@example("{", [], "\\", ["a"], True)
def test_a_bracket_prefix_rejection_is_the_tolerant_pass(
    opener: str, prefix: list[str], at: str, rest: list[str], eof: bool
) -> None:
    """Strict JSON failing after brackets, commas and whitespace only (`bracket_prefix_reject`):
    where the shortcut answers, the tolerant pass rejects the document at the same character
    with the same brackets open (and needs no more text for it while streaming)."""
    text = opener + "".join(prefix) + at + "".join(rest)
    if not isinstance(_strict(text, 0, streaming=not eof), bool):
        return  # strict JSON read it, or it is a valid prefix still streaming in
    early = bracket_prefix_reject(text, 0, _failure(text, 0))
    if early is None:
        return
    try:
        reading: Rejected | object = parse_tolerant(text, 0, eof=eof)
    except NeedMore:
        reading = "needs more text"
    assert reading == early


def test_a_bracket_prefix_rejection_is_taken_where_random_text_fails_early() -> None:
    """The shortcut answers the commonest rejections of random JSON-like text (an element
    that is no value, a key that is none, a value after a closer), with the open brackets."""
    assert bracket_prefix_reject("[[{}, :a", 0, _failure_of("[[{}, :a")) == Rejected(0, 6, (0, 1))
    assert bracket_prefix_reject("{ \\x}", 0, None) == Rejected(0, 2, (0,))
    assert bracket_prefix_reject("[[] a", 0, _failure_of("[[] a")) == Rejected(0, 4, (0,))
    assert bracket_prefix_reject("{ a: 1}", 0, None) is None  # an unquoted key
    assert bracket_prefix_reject("[{\na]", 0, _failure_of("[{\na]")) == Rejected(0, 3, (0, 1))
    assert bracket_prefix_reject('["a", :', 0, _failure_of('["a", :')) is None  # a string


def _failure_of(text: str) -> tuple[int, str] | None:
    _strict(text, 0)  # (keeps where it failed)
    return _failure(text, 0)
