"""A definition's signature heading is cut by string methods (issue 27 item 8: the regular
expression anchored at the end was tried at every character); the same text as before."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from actions.index.syntax_chunks import SIGNATURE_CHARS, signature_text

_SPACE = re.compile(r"\s+")
_OPENER = re.compile(r"\s*(?:=>|[{:=])?\s*$")


def reference_signature(raw: str) -> str:
    return _OPENER.sub("", _SPACE.sub(" ", raw).strip())[:SIGNATURE_CHARS]


PIECES = st.sampled_from(
    [
        *("def f(x)", "fn", "a", "->", "=>", "=", "==", ">", "{", "}", ":", "::", "(", ")", "é"),
        *(" ", "  ", "\n", "\t", "\r\n", "\x0b", "\x1c", "\x85", "\xa0", "\u2028", "\u3000"),
    ]
)
RAW = st.one_of(st.lists(PIECES, max_size=20).map("".join), st.text(max_size=40))


@settings(max_examples=1000)
@given(RAW)
def test_signatures_are_cut_as_the_regular_expressions_cut_them(raw: str) -> None:
    assert signature_text(raw) == reference_signature(raw)


def test_long_and_typical_signatures() -> None:
    for raw in [
        "def parse(self,\n    text: str,\n) -> Tree:",
        "function load(path) {",
        "const f = (a, b) =>",
        "fn main() -> Result<(), Error> {",
        "x" * 500 + " {",
    ]:
        assert signature_text(raw) == reference_signature(raw)
