"""The tolerant parser's C-speed reads give exactly the token-by-token reading.

Where a container or a string stretch is strictly valid JSON, `parse_tolerant` reads it with
json's C scanner instead of its own rules (`_strict_container`, the strict stretches of
`_string`). The claim: the result is the same in every case, including the decision that
looks past such a value (the quote ending its last string, judged by the closer run that
follows), cut-off retries, depth, streaming (`NeedMore`) and an end marker. These properties
compare the two readings on documents with the defects models write: inner and unescaped
quotes in code, trailing commas, Python literals, raw newlines, comments, missing quotes and
closers, cut-off text.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsing.json.scan import NeedMore
from parsing.json.tolerant import MAX_DEPTH, parse_tolerant

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))

_CODE = [
    'x = {"a": [1, 2]}', "print(\"hi\")", 'd["k"] = "v"', "s = 'it'", "if (a) { b(); }",
    '"', '",', '" ', '"}', '"]', '":', '"b": {"c": None}', "// </tool_call> ```", "\\n", "é",
]  # fmt: skip
_DEFECTS = [
    "unescape", "unescape_all", "inner", "comma", "literal", "newline", "comment", "cut",
    "drop_quote", "drop_closer", "swap_closer",
]  # fmt: skip
_LEAVES = st.one_of(
    st.integers(-5, 10**20),
    st.sampled_from([True, False, None, 1.5, -0.0, 1e300]),
    st.text(max_size=8),
)


def _values(depth: int) -> st.SearchStrategy[Any]:
    if depth == 0:
        return _LEAVES
    inner = _values(depth - 1)
    return st.one_of(
        _LEAVES,
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "path", "content", "b c", "é"]), inner, max_size=3),
    )


@st.composite
def documents(draw: st.DrawFn) -> str:
    code = "\n".join(draw(st.lists(st.sampled_from(_CODE), min_size=1, max_size=6)))
    doc = {
        "action": "continue_multi_file",
        "next_file": {"file": {"path": "/a.py", "content": code}, "extra": draw(_values(3))},
        "message": draw(st.sampled_from(["m", 'a "b" c', "x"])),
    }
    keys = draw(st.permutations(list(doc)))
    raw = json.dumps({k: doc[k] for k in keys}, indent=draw(st.sampled_from([None, 2])))
    for defect in draw(st.lists(st.sampled_from(_DEFECTS), max_size=3)):
        raw = _malform(raw, defect, draw(st.integers(0, 10**6)))
    return raw


def _malform(raw: str, defect: str, at: int) -> str:
    if not raw:  # earlier defects can leave nothing (a cut, then a dropped quote)
        return raw
    quotes = [i for i, c in enumerate(raw) if c == '"'] or [0]
    closers = [i for i, c in enumerate(raw) if c in "}]"] or [0]
    q, c = quotes[at % len(quotes)], closers[at % len(closers)]
    edits = {
        "unescape": raw.replace('\\"', '"', 1 + at % 3),
        "unescape_all": raw.replace('\\"', '"'),
        "inner": raw[:q] + ['"x"', '" ', '"', '","', '"}', '":'][at % 6] + raw[q:],
        "comma": raw[:-1] + ",}",
        "literal": raw.replace("true", "True").replace("null", "None"),
        "newline": raw.replace("\\n", "\n", 1 + at % 4),
        "comment": raw.replace('{"', '{ // c\n "', 1),
        "cut": raw[: 1 + at % len(raw)],
        "drop_quote": raw[:q] + raw[q + 1 :],
        "drop_closer": raw[:c] + raw[c + 1 :],
        "swap_closer": raw[:c] + ("]" if raw[c] == "}" else "}") + raw[c + 1 :],
    }
    return edits[defect]


def _read(text: str, start: int, strict_reads: bool, **kwargs: Any) -> object:
    try:
        return parse_tolerant(text, start, strict_reads=strict_reads, **kwargs)
    except NeedMore:
        return "need more"


@SETTINGS
@given(
    documents(),
    st.sampled_from(["", "\n\nDone.", "\n```\nafter", ' {"b": 1}', "\n</tool_call>", "}, x"]),
    st.sampled_from([None, "```", "</tool_call>"]),
    st.booleans(),
)
def test_strict_reads_equal_the_token_by_token_reading(
    doc: str, after: str, marker: str | None, code: bool
) -> None:
    text = doc + after
    for start in [i for i, ch in enumerate(text) if ch in "{["][:4]:
        for eof in (True, False):
            kwargs = {"eof": eof, "marker": marker, "code_in_values": code}
            assert _read(text, start, True, **kwargs) == _read(text, start, False, **kwargs)


@SETTINGS
@given(documents(), st.data())
def test_strict_reads_equal_on_streamed_prefixes(doc: str, data: st.DataObject) -> None:
    start = min((doc.find(ch) for ch in "{[" if ch in doc), default=-1)
    if start < 0:
        return
    prefix = doc[: data.draw(st.integers(start + 1, len(doc)))]
    assert _read(prefix, start, True, eof=False) == _read(prefix, start, False, eof=False)


def test_a_strictly_valid_value_past_the_depth_limit_is_still_refused() -> None:
    deep = '{"a": ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + ", 'b': 1}"
    fast, slow = parse_tolerant(deep, 0), parse_tolerant(deep, 0, strict_reads=False)
    assert fast == slow
    assert getattr(fast, "too_deep", False)


def test_the_last_string_of_a_valid_value_is_judged_by_what_follows_it() -> None:
    # {"c": "x"} is valid, but inside a fence its closer run does not end the document
    # (prose follows on the same line): the quote after x is then a character
    text = '{"a": {"c": "x"}} junk", "z": 1}\n'
    for marker in (None, "```"):
        fast = parse_tolerant(text, 0, marker=marker)
        assert fast == parse_tolerant(text, 0, marker=marker, strict_reads=False)
    assert parse_tolerant(text, 0, marker="```").value["a"]["c"].startswith('x"}}')  # type: ignore[union-attr]
