"""What makes a try of a JSON candidate cheaper gives the same answers (issue 21 item 10):
each shortcut is checked against the reading without it, on JSON-like junk (the texts that
fail most: random JSON characters) and near-documents, whole and streamed."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parsing.json.scan import NeedMore, Source
from parsing.json.snippets import _failure, _strict
from parsing.json.tolerant import Decoded, Rejected, _parse, _Parser, parse_tolerant

SETTINGS = settings(max_examples=3000, deadline=None, suppress_health_check=list(HealthCheck))
_PIECES = st.lists(
    st.sampled_from(
        [*"{}[]\":,\\ \nab'", '":', '" :', '"\n:', "a\\a", '"a":', '"x"', ", ", "//c\n", "\\n"]
    ),
    max_size=30,
)
_MARKERS = st.sampled_from([None, "```", "</tool_call>"])


class _NoColonShortcut(_Parser):
    """The tolerant reading without `_no_colon_after` (the reference it must equal)."""

    def _no_colon_after(self, k: int, ctx: str) -> None:
        return None


def _reading(
    parser: type[_Parser], text: str, eof: bool, marker: str | None, code: bool
) -> Decoded | Rejected | str:
    src = Source(text, eof, marker)
    try:
        return _parse(src, parser(src, 0, {}, code))
    except NeedMore:
        return "needs more text"


@SETTINGS
@given(st.sampled_from("{["), _PIECES, st.booleans(), _MARKERS, st.booleans())
@example("[", ['"', "a", "\\a", '"', " ", ":"], True, None, False)  # an element, then ":"
@example("{", ['"a":', '"', "b", '"', "\n", ":"], False, None, False)  # a value, then ":"
@example("{", ['"a":', '"', "a", '"', ":", '"'], True, None, True)  # code: the quote is kept
@example("{", ['"', "a", '"', ":", '"x"', "}"], True, None, False)  # a key, then ":"
def test_a_value_before_a_colon_is_rejected_as_the_next_step_rejects_it(
    opener: str, pieces: list[str], eof: bool, marker: str | None, code: bool
) -> None:
    """A quote ending a value before a ``:`` rejects the document at the colon before the
    value is decoded (`StringReader._no_colon_after`): the same answer as the reading that
    decodes the value and rejects at its next step."""
    text = opener + "".join(pieces)
    expected = _reading(_NoColonShortcut, text, eof, marker, code)
    assert _reading(_Parser, text, eof, marker, code) == expected


def test_a_colon_after_a_value_is_rejected_with_the_brackets_open_there() -> None:
    """What a user of the parser sees: prose holding ``["a": 1]`` is no JSON, and the
    rejection names the brackets open at the colon."""
    assert parse_tolerant('["a\\q": 1]', 0) == Rejected(0, 6, (0,))
    assert parse_tolerant('{"k": ["x", "y" :', 0, eof=False) == Rejected(0, 16, (0, 6))
    assert isinstance(parse_tolerant('{"k": "v", "a": 1}', 0), Decoded)


def _fresh(text: str, start: int, marker: str | None) -> Decoded | Rejected | str:
    src = Source(text, False, marker)
    try:
        return _parse(src, _Parser(src, start, {}))
    except NeedMore:
        return "needs more text"


def _streamed(text: str, start: int, marker: str | None) -> Decoded | Rejected | str:
    try:
        return parse_tolerant(text, start, eof=False, marker=marker)
    except NeedMore:
        return "needs more text"


@SETTINGS
@given(
    st.sampled_from("{["),
    _PIECES,
    st.lists(st.integers(0, 200), min_size=1, max_size=8),
    st.sampled_from([None, "```"]),
    st.sampled_from(["", "a", "\n"]),
    st.booleans(),
)
@example("[", ['"', "a", '"', ",", '"', "b"], [3, 5, 6], None, "", False)
@example("[", ['"', "a", "b", "\\n"], [3, 4], None, "", True)  # an edit between two tries
def test_a_streamed_try_resumes_the_last_one_as_a_fresh_reading_reads(
    opener: str, pieces: list[str], cuts: list[int], marker: str | None, pre: str, edit: bool
) -> None:
    """The tries of a short candidate while it streams in resume the last one that needed
    more text (`resume.take_stopped`): each answers what a fresh reading of its text
    answers, also when another candidate's try came between (a nested one, another text's),
    or the candidate's last character changed (no resumption then)."""
    text = pre + opener + "".join(pieces)
    start = len(pre)
    for cut in sorted({start + 1 + c % max(1, len(text) - start) for c in cuts}):
        prefix = text[:cut]
        if edit and cut > start + 1:  # a text that does not extend the last one
            prefix = prefix[:-1] + ("b" if prefix[-1] == "a" else "a")
        assert _streamed(prefix, start, marker) == _fresh(prefix, start, marker)
        inner = next((k for k in range(start + 1, cut) if prefix[k] in "{["), None)
        if inner is not None:  # a nested candidate's try of the same text, in between
            assert _streamed(prefix, inner, marker) == _fresh(prefix, inner, marker)
        _streamed('["x", "y', 0, None)  # another text's, in between
        assert _streamed(prefix, start, marker) == _fresh(prefix, start, marker)


def _strict_reading(text: str, start: int) -> tuple[object, object]:
    read = _strict(text, start, streaming=True)
    if isinstance(read, tuple):
        read = (read[0], read[1] - start)
    failed = _failure(text, start)
    return read, None if failed is None else (failed[0] - start, failed[1])


@SETTINGS
@given(
    st.sampled_from("{["),
    st.lists(
        st.sampled_from([*'{}[]":,\\ \nab', "nul", "null", "1", "-", "1e", "\\u00", "\\u0041"]),
        max_size=24,
    ),
    st.lists(st.integers(0, 100), min_size=2, max_size=8),
)
@example("[", ["a", ",", "1", "1", "1", "1", "1", "1", "1"], [2, 9])  # failed long before the end
@example("[", ["1", ",", "nul"], [3, 9])  # "nul" then "l": a literal, read on
@example("[", ["a", ",", "[", "]", *" " * 8], [20, 30])  # a nested value, valid
@example("[", ['"', "\\u00"], [5, 9])  # an escape cut at the end of the text
def test_the_strict_failure_of_a_streamed_try_is_kept_for_the_next_one(
    opener: str, pieces: list[str], cuts: list[int]
) -> None:
    """A candidate tried again on a longer text fails strict JSON where its last try did
    when that failure was not at the end of the text (`snippets._LAST_FAILED`): every try
    answers, and keeps the failure, as a fresh one (a try at another start, the reference)."""
    text = opener + "".join(pieces)
    inner = next((k for k in range(1, len(text)) if text[k] in "{["), len(text))
    prefixes = [text[: 1 + c % len(text)] for c in sorted(cuts)]
    tries, fresh = [], []
    for prefix in prefixes:
        starts = (0, inner) if inner < len(prefix) else (0,)  # (a nested candidate's try)
        tries += [_strict_reading(prefix, start) for start in starts]
        for start in starts:  # (each reference on a text that extends no other one)
            pad = " " * (len(fresh) + 1)
            fresh.append(_strict_reading(pad + prefix, len(pad) + start))
    assert tries == fresh
