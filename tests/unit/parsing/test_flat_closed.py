"""`_flat_closed` (a closed flat object of plain keys and unquoted values, ``{mode: <think>}``,
read at C speed) answers what `match_bare_at` answers without it: the strict, lossless and
tolerant passes, whole and while streaming (a bare object: no region marker). `_strict`
calls the decoder's scanner at a bracket as ``raw_decode`` does; a JSON fence without its
closer yet is pending before its closing line is built (`match_enclosed`'s answer);
`_whole_body` reads as before its helpers were inlined."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parsing.classify import is_action_document, tool_call_of
from parsing.fences import closing_line, match_fence_at
from parsing.json.lossless import lossless_loads
from parsing.json.regions import run_end, snippet_of
from parsing.json.scan import NeedMore, Source
from parsing.json.shortcuts import _flat_closed
from parsing.json.snippets import (
    _FAILED,
    _STRICT,
    _strict,
    _whole_body,
    match_bare_at,
    match_enclosed,
)
from parsing.json.tolerant import Decoded
from parsing.regions import PENDING, Found

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
    with patch("parsing.json.shortcuts._flat_closed", lambda text, i: None):
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


_JSONISH = st.lists(
    st.sampled_from([*'{}[]":, 1-.e\\', '"a"', "true", "tru", "NaN", "x", "\n", "\x01", "é"]),
    max_size=30,
).map("".join)


@FAST
@given(st.sampled_from(["{", "[", " {", ""]), _JSONISH, st.booleans())
@example("[", "1, {", True)  # a value cut by the end: no value at its end (StopIteration)
@example("{", '"a": -}', False)
def test_strict_scanner_answers_as_raw_decode(start: str, rest: str, streaming: bool) -> None:
    text = start + rest
    if not text:
        return
    _FAILED[0] = None
    got = _strict(text, 0, streaming=streaming)
    failed = _FAILED[0]
    _FAILED[0] = None
    with patch("parsing.json.snippets._scan_once", lambda s, i: _STRICT.raw_decode(s, i)):
        assert _strict(text, 0, streaming=streaming) == got
    assert _FAILED[0] == failed


@FAST
@given(
    st.sampled_from(["```json", "~~~json", "```JSON5 ", "```"]),
    st.sampled_from(["\n", " ", "\n\n"]),
    _JSONISH,
)
@example("```json", " ", '{"a": 1}')
def test_a_json_fence_without_its_closer_yet_is_pending_before_its_line(
    opener: str, gap: str, rest: str
) -> None:
    text = opener + gap + rest
    found = match_fence_at(text, 0, opener[:3], eof=False)
    body = len(opener) + len(gap)
    if text.find(opener[:3], body) < 0 and rest[:1] in ("{", "[") and opener.strip() != "```":
        assert found is PENDING
        line = closing_line(opener[:3])
        args = (text, 0, body, opener[:3], "fenced_json", False)
        assert match_enclosed(*args, repair=True, line_close=line) is PENDING


@FAST
@given(
    st.dictionaries(
        st.sampled_from(["a", "id", "type", "args", "arguments", "Action", "names"]),
        st.sampled_from(["x", "text_response", 1, {}, '{"a": 1}']),
    )
)
def test_a_dict_without_action_name_or_function_name_is_no_document(value: dict) -> None:
    # (`classify._document` answers text for it before these two)
    assert not is_action_document(value)
    assert tool_call_of(value) is None


def _whole_body_before(text: str, body_start: int, close: str, eof: bool) -> object:
    """`_whole_body` as it read before `run_end` and `Source.skip_ws` were inlined."""
    at = text.find(close, body_start)
    if at < 0:
        return None
    last = at - 1
    while last > body_start and text[last] in " \t\r\n":
        last -= 1
    if text[last] not in "}]":
        return None
    fixed = lossless_loads(text[body_start:at])
    if fixed is None or not isinstance(fixed[0], dict | list):
        return None
    src = Source(text, eof)
    try:
        end = run_end(src, at + len(close), close)
    except NeedMore:
        return PENDING  # (the run may still grow: since issue 21, the stream waits for it)
    v, stop = src.skip_ws(body_start), at
    while stop > v and text[stop - 1] in " \t\r\n":
        stop -= 1
    d = Decoded(fixed[0], v, stop, bool(fixed[1]), False, fixed[1])
    return Found((snippet_of((0, end), d, "fenced_json"),), end)


@FAST
@given(
    st.sampled_from(["```json", "~~~json", "<tool_call>"]),
    st.sampled_from(["", " ", "\n", "\u3000", "\x0c"]),
    _JSONISH,
    st.sampled_from(["", " ", "\n\t", "\x0c"]),
    st.sampled_from(["```", "````", "~~~", "</tool_call>"]),
    st.sampled_from(["", "`", " x", "\n"]),
    st.booleans(),
)
@example("```json", " ", '{"a": 1}', "", "```", "", False)
def test_whole_body_reads_as_before(
    opener: str, gap: str, value: str, pad: str, close: str, after: str, eof: bool
) -> None:
    text = opener + gap + value + pad + close + after
    want = _whole_body_before(text, len(opener), close, eof)
    assert _whole_body(text, 0, len(opener), close, "fenced_json", eof) == want
