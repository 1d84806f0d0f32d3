"""What makes a try of a JSON candidate cheaper gives the same answers (issue 21 item 10):
each shortcut is checked against the reading without it, on JSON-like junk (the texts that
fail most: random JSON characters) and near-documents, whole and streamed."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parsing.json.scan import NeedMore, Source
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
