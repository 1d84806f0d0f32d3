"""The whitespace skip answers without its regex when no whitespace or comment starts at
``i`` (every ``\\s`` character is at most ``" "`` or from ``"\\x85"`` on): it must skip exactly
what the regex skips, for every character, with and without comments, and the tolerant
pass must read documents spaced by any Unicode whitespace as before."""

from __future__ import annotations

import re

import pytest

from parsing.json.scan import WS_COMMENTS, Source
from parsing.json.tolerant import Decoded, parse_tolerant

_WS = re.compile(r"\s*")
SAMPLE = [chr(c) for c in range(0x3100)] + ["\U0001f600", "\ufeff", "\u3000"]


@pytest.mark.parametrize("comments", [False, True])
def test_skip_ws_skips_what_the_regex_skips_for_every_character(comments: bool) -> None:
    regex = WS_COMMENTS if comments else _WS
    for c in SAMPLE:
        for text in (f"{c}x", f"a{c}", f"{c}{c}/", f"{c}//c\nx"):
            src = Source(text, eof=True)
            for i in range(len(text) + 1):
                assert src.skip_ws(i, comments) == regex.match(text, i).end(), (text, i)  # type: ignore[union-attr]


def test_the_tolerant_pass_skips_every_unicode_space_between_tokens() -> None:
    spaces = [c for c in SAMPLE if c.isspace()]
    assert {"\x1c", "\x85", "\u3000"} <= set(spaces)
    for c in spaces:
        text = f"{{{c}a{c}:{c}1{c},{c}'b':[{c}2{c}]{c}}}"
        decoded = parse_tolerant(text, 0)
        assert isinstance(decoded, Decoded), repr(c)
        assert decoded.value == {"a": 1, "b": [2]}, repr(c)
