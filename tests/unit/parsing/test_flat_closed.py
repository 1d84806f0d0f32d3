"""`_flat_closed` (a closed flat object of plain keys and unquoted values, ``{mode: <think>}``,
read at C speed) answers what `match_bare_at` answers without it: the strict, lossless and
tolerant passes, whole and while streaming (a bare object: no region marker)."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parsing.json_shortcuts import _flat_closed
from parsing.json_snippets import match_bare_at

FAST = settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))

_KEYS = ["mode", "a", "T", "True", "$x", "a.b-c", "_", "null", "é", "1a", '"k"', "a b"]
_VALUES = [
    "<think>", "</think>", "x", "x y", "<", "`", "~~~", "```", "1", "-1", "-x", "1 2", "0x",
    "true", "truex", "None", "Nonesuch", "n", "t", "a: b", "é", " ", "\t", "\n", "/", "//c",
    "/*c*/", "\\", '"', "'", "{", "}", "[", "]", ",", "<tool_call>", "\x01", "\u2028", "\x1c",
]  # fmt: skip
_GAPS = ["", " ", "\n", "\t ", "\r\n", "\u3000", "\x0c", "//c\n", "/**/"]

member = st.tuples(
    st.sampled_from(_KEYS),
    st.sampled_from(_GAPS),
    st.sampled_from(_GAPS),
    st.lists(st.sampled_from(_VALUES), min_size=1, max_size=3).map("".join),
    st.sampled_from(_GAPS),
).map(lambda p: f"{p[0]}{p[1]}:{p[2]}{p[3]}{p[4]}")
flat_objects = st.tuples(
    st.sampled_from(_GAPS),
    st.lists(member, min_size=1, max_size=4),
    st.sampled_from(["}", ",}", "", "} ", "}}", "} </think>", ", b"]),
).map(lambda p: "{" + p[0] + ",".join(p[1]) + p[2])


def _without_shortcut(text: str, eof: bool) -> object:
    with patch("parsing.json_snippets._flat_closed", lambda text, i: None):
        return match_bare_at(text, 0, eof)


@FAST
@given(flat_objects, st.booleans())
@example("{mode: <think>}", True)
@example("{mode: <think>} {mode: <think>} </think>", False)
@example("{a: x, b: y ,\n c:\tz\n}", True)
@example("{a: 1 2}", True)  # a number then more: left to the passes
@example("{a: x, a: y}", True)  # a repeated key: the last kept
def test_flat_closed_reads_as_every_pass(text: str, eof: bool) -> None:
    if _flat_closed(text, 0) is None:
        return
    assert match_bare_at(text, 0, eof) == _without_shortcut(text, eof)


def test_flat_closed_takes_the_think_tag_family() -> None:
    found = _flat_closed("{mode: <think>} {mode: <think>}", 0)
    assert found is not None
    assert (found.value, found.end) == ({"mode": "<think>"}, 15)
