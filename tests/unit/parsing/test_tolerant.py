"""Our own repair pass: what it fixes, what it flags, what it refuses (a table of inputs)."""

from __future__ import annotations

from typing import Any

import pytest

from parsing.json.lossless import lossless_loads
from parsing.json.repair_fallback import lost_characters
from parsing.json.scan import NeedMore
from parsing.json.tolerant import MAX_DEPTH, Decoded, Rejected, parse_tolerant

REPAIRS: list[tuple[str, Any, str, bool]] = [
    ('{"a": 1,}', {"a": 1}, "trailing_comma", False),
    ("[1, 2, ]", [1, 2], "trailing_comma", False),
    ('{"a": 1 // one\n, /* two */ "b": 2}', {"a": 1, "b": 2}, "comment", False),
    (
        '{"a": True, "b": False, "c": None}',
        {"a": True, "b": False, "c": None},
        "python_literal",
        False,
    ),
    ('{"code": "line1\nline2\tend"}', {"code": "line1\nline2\tend"}, "string_characters", False),
    ('{"re": "\\d+\\s"}', {"re": "\\d+\\s"}, "string_characters", False),
    ('{"a": 1\n "b": 2}', {"a": 1, "b": 2}, "missing_comma", False),
    ('{"say": "He said "hello" to me"}', {"say": 'He said "hello" to me'}, "inner_quotes", False),
    ("{'id': None, 'name': '12\"34\"'}", {"id": None, "name": '12"34"'}, "single_quotes", False),
    ("{path: 'a.py'}", {"path": "a.py"}, "unquoted_key", False),
    ('{"a": [1, 2}', {"a": [1, 2]}, "mismatched_closers", False),
    ('{"a": {"b": 1]}', {"a": {"b": 1}}, "mismatched_closers", False),
    (
        '{"content": "def f():\\n    pass\\n"',
        {"content": "def f():\n    pass\n"},
        "truncated",
        True,
    ),
    ('{"a": [1, {"b": "cut', {"a": [1, {"b": "cut"}]}, "truncated", True),
    ('{"a": "x", "b', {"a": "x"}, "truncated", True),
    ('{"a": "x", "b": ', {"a": "x"}, "truncated", True),
    ('{"a": "ends with escape \\', {"a": "ends with escape "}, "truncated", True),
]


@pytest.mark.parametrize(("raw", "value", "fix", "truncated"), REPAIRS)
def test_repairs(raw: str, value: Any, fix: str, truncated: bool) -> None:
    result = parse_tolerant(raw, 0)
    assert isinstance(result, Decoded)
    assert result.value == value
    assert fix in result.fixes
    assert result.repaired
    assert result.truncated is truncated
    assert not lost_characters(raw, result.value) or truncated or fix == "comment"


@pytest.mark.parametrize(
    "prose",
    [
        "{x}",
        "{ see above }",
        '{" + a + ", " + b + "}',
        "[gulf_states]",
        "[see note]",
        '{"":["":"""":}}}s"":',
        '{"a" "b"}',
        '{"a": }',
    ],
)
def test_prose_and_garbage_are_rejected(prose: str) -> None:
    assert isinstance(parse_tolerant(prose, 0), Rejected)


def test_value_ends_at_its_closer_and_reports_the_span() -> None:
    text = 'Here: {"a": [1, 2,],} and then prose {'
    start = text.index("{")
    result = parse_tolerant(text, start)
    assert isinstance(result, Decoded)
    assert text[result.start : result.end] == '{"a": [1, 2,],}'


def test_a_quote_followed_by_a_key_ends_the_string_not_the_prose_after_it() -> None:
    raw = '{\n "a": "x "y" z",\n "b": "w"\n}'
    result = parse_tolerant(raw, 0)
    assert isinstance(result, Decoded)
    assert result.value == {"a": 'x "y" z', "b": "w"}


def test_deep_nesting_is_rejected_with_the_open_brackets() -> None:
    raw = "[" * (MAX_DEPTH + 50)
    result = parse_tolerant(raw, 0)
    assert isinstance(result, Rejected)
    assert len(result.open_starts) == MAX_DEPTH


def test_streaming_asks_for_more_instead_of_guessing() -> None:
    with pytest.raises(NeedMore):
        parse_tolerant('{"a": "still typ', 0, eof=False)
    with pytest.raises(NeedMore):
        parse_tolerant('{"a": 12', 0, eof=False)
    done = parse_tolerant('{"a": 1,}', 0, eof=False)
    assert isinstance(done, Decoded)
    assert done.value == {"a": 1}


def test_end_marker_closes_a_cut_off_body() -> None:
    text = '{"foo": "bar"\n\n```\nAfter the fence'
    result = parse_tolerant(text, 0, marker="```")
    assert isinstance(result, Decoded)
    assert result.value == {"foo": "bar"}
    assert result.truncated
    assert text[result.end :].lstrip().startswith("```")


def test_marker_inside_a_string_does_not_end_the_body() -> None:
    text = '{"cmd": "echo </tool_call> ok",}</tool_call>'
    result = parse_tolerant(text, 0, marker="</tool_call>")
    assert isinstance(result, Decoded)
    assert result.value == {"cmd": "echo </tool_call> ok"}
    assert not result.truncated


@pytest.mark.parametrize(
    ("body", "value", "fixes"),
    [
        ('{"a": 1,}', {"a": 1}, {"trailing_comma"}),
        ('{"a": True, "b": [None, False,],}', {"a": True, "b": [None, False]}, None),
        ('{"a": "x\ny\tz", "b": "q\nr"}', {"a": "x\ny\tz", "b": "q\nr"}, {"string_characters"}),
        ('{"a": 1 // c\n, "b": /* x */ 2}', {"a": 1, "b": 2}, {"comment"}),
        ('{"s": "True, // not a comment,}"}', {"s": "True, // not a comment,}"}, set()),
    ],
)
def test_lossless_fixes_at_orjson_error_positions(
    body: str, value: Any, fixes: set[str] | None
) -> None:
    result = lossless_loads(body)
    assert result is not None
    assert result[0] == value
    assert result[1] == (fixes if fixes is not None else {"trailing_comma", "python_literal"})
    tolerant = parse_tolerant(body, 0)
    assert isinstance(tolerant, Decoded)
    assert tolerant.value == value  # both passes read these fixes identically


@pytest.mark.parametrize(
    "body", ['{"a": "x" "b"}', "{'a': 1}", '{"a": "cut', '{"n": 123456789012345678901234}']
)
def test_lossless_pass_leaves_the_rest_to_the_tolerant_parser(body: str) -> None:
    assert lossless_loads(body) is None
