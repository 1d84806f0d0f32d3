"""The C-speed shortcuts of the tolerant parser answer exactly what the slow path answers.

Each shortcut claims "the Python decision here is surely X": the value-run regular expression
passes over a string's quotes that `_quote_ends` would keep as characters; `_FLAT_REJECT`
rejects objects that the strict, lossless and tolerant passes all reject; `_strict` answers an
object without a quoted first key without running the decoder. These properties check each
claim against the decision it replaces, on generated JSON-like text full of quotes, commas,
colons and brackets.
"""

from __future__ import annotations

import json
import re
from unittest.mock import patch

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parsing.json.code_values import code_first, code_in_values, escaped_in_region
from parsing.json.escaped_quotes import escaped_quotes_at
from parsing.json.rules import _VALUE_RUNS, _VALUE_RUNS_ARRAY, _VALUE_RUNS_FLAT
from parsing.json.scan import Source, run_pattern, split_at_quotes
from parsing.json.shortcuts import (
    _FIRST_VALUE_PENDING,
    _FIRST_VALUE_REJECT,
    _FLAT_PENDING,
    _FLAT_REJECT,
    _LINE_VALUE_PENDING,
    _LINE_VALUE_REJECT,
    _OPENED_VALUE_REJECT,
    _bracket_for_key,
)
from parsing.json.snippets import (
    _LOSSLESS_FIRST,
    _PARTIAL_TOKEN,
    _cut_at_once,
    _failure,
    _strict,
    decode_at,
    match_bare_at,
)
from parsing.json.tolerant import Rejected, _Parser, parse_tolerant
from parsing.json.tolerant_strings import _Frame
from parsing.regions import PENDING, NoMatch
from parsing.snippets import match_at

FAST = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))

_ATOMS = [
    *"\"',:{}[]/ \n\tab1-_.$<`~\\",
    '"}, "', '"}}, ', '"} x', '"}]', '"},', "},",
    ", ", ": ", '", "', "', '", '": ', '"k":', "key: ", "true", "None", "//c\n", "/*c*/",
    '"] = ', "] ", "]x", '"]', "]}",
    "\\\"", "\\n", "é", "\x01", "```", "</tool_call>",
]  # fmt: skip
body = st.lists(st.sampled_from(_ATOMS), max_size=40).map("".join)


def _parser(text: str, kinds: str, marker: str | None, eof: bool) -> _Parser:
    parser = _Parser(Source(text, eof, marker), 0, {})
    parser.stack = [_Frame(kind, 0, {} if kind == "{" else []) for kind in kinds]
    return parser


@FAST
@given(
    body,
    st.sampled_from(['"', "'"]),
    st.sampled_from(["o", "a"]),
    st.sampled_from(["", "{", "[", "{["]),
    st.sampled_from([None, "```", "</tool_call>"]),
    st.booleans(),
    st.booleans(),
)
@example('x"}, "y"},', '"', "a", "", None, False, False)  # a bare array's lone "}": waits
def test_quotes_passed_over_never_end_the_string(
    rest: str, quote: str, ctx: str, outer: str, marker: str | None, eof: bool, code: bool
) -> None:
    """Every quote the value run passes over is one `_quote_ends` keeps as a character,
    whatever brackets are open (and that decision never needs more text)."""
    text = quote + rest
    flat = "[" not in outer and ctx == "o"  # no array open: lone "]" quotes passed too
    array = not outer and ctx == "a"  # only a bare array open: lone "}" quotes passed too
    runs = _VALUE_RUNS_FLAT if flat else _VALUE_RUNS_ARRAY if array else _VALUE_RUNS
    end = runs[quote, ctx, code].match(text, 1).end()  # type: ignore[union-attr]
    plain = run_pattern(quote).match
    parser = _parser(text, outer + ("{" if ctx == "o" else "["), marker, eof)
    k = plain(text, 1).end()  # type: ignore[union-attr]
    while k < end:
        assert text[k] == quote
        assert parser._quote_ends(k, ctx, code) is False, (text, k)
        k = plain(text, k + 1).end()  # type: ignore[union-attr]


@FAST
@given(body, st.sampled_from(['"', "'"]))
def test_split_at_quotes_cuts_at_unescaped_quotes_only(rest: str, quote: str) -> None:
    if (len(rest) - len(rest.rstrip("\\"))) % 2:
        rest += "\\"  # a body never ends inside an escape
    segments = split_at_quotes(rest, quote)
    assert quote.join(segments) == rest
    for segment in segments:
        assert run_pattern(quote).match(segment).end() == len(segment)  # type: ignore[union-attr]


flat = st.lists(
    st.sampled_from(
        [
            "{",
            "a",
            ": ",
            "b",
            ", ",
            '"k"',
            "'k'",
            "1",
            "True",
            "\n",
            " ",
            "(",
            ";",
            "[",
            "5",
            "-",
            "x y",
            "/",
            "}",
            "<",
            ":",
            ",",
            ".",
            "$",
            "\\",
            "\x01",
            "é",
            "{a: b, ",
            '"',
            "'",
        ]
    ),
    min_size=1,
    max_size=30,
).map(lambda parts: "{" + "".join(parts))


@FAST
@given(flat, st.booleans())
def test_flat_reject_is_what_every_pass_answers(text: str, eof: bool) -> None:
    if _FLAT_REJECT.match(text) is None:
        return
    read = decode_at(text, 0, eof=eof)  # strict, lossless and tolerant passes (no NeedMore)
    assert isinstance(read, Rejected)
    assert read.open_starts == (0,)
    assert not read.too_deep


@FAST
@given(st.sampled_from(["", " ", "\n\t ", "\r"]), body, st.booleans())
@example(ws="", rest="~~~", streaming=True)  # near the end of a streamed text: no decoder
@example(ws="", rest="abc", streaming=True)  # ... but a word there may be a cut-off token: None
@example(ws=" ", rest="", streaming=True)
def test_strict_answers_a_missing_quoted_key_as_the_decoder(
    ws: str, rest: str, streaming: bool
) -> None:
    text = "{" + ws + rest
    try:
        json.JSONDecoder().raw_decode(text)
        expected: object = "decoded"
    except json.JSONDecodeError as exc:
        at = text[exc.pos : exc.pos + 1]
        cut = exc.msg.startswith("Unterminated string") or exc.pos >= len(text) - 6
        if streaming and cut and _PARTIAL_TOKEN.match(text, exc.pos):
            expected = None  # a valid prefix cut by the end of the text
        else:
            expected = at != "" and (at in _LOSSLESS_FIRST or at < " ")
    except (ValueError, RecursionError):
        expected = True
    got = _strict(text, 0, streaming=streaming)
    assert (got if isinstance(got, bool | None) else "decoded") == expected


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text('ab"}`', max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text("ab", max_size=2), inner),
    max_leaves=6,
)


_QUOTED = [
    *'"""\',:{}[] \n/', "a", "b c", "1", "true", "x)", ";", '"k": ', ', "k": "', '", "',
    '"]', '"}', '"}, ', "\\\"", "\\\\", "\\n", "//c\n", "/*c*/", "```", "</tool_call>", "é",
]  # fmt: skip
quoted = st.lists(st.sampled_from(_QUOTED), max_size=30).map("".join)


def _strict_error(text: str, i: int) -> tuple[int, str] | None:
    try:
        json.JSONDecoder().raw_decode(text, i)
    except json.JSONDecodeError as exc:
        return exc.pos, exc.msg
    except ValueError:
        return None
    return None


@FAST
@given(
    st.sampled_from(["```json\n", "~~~json ", "<tool_call>"]),
    _JSON.filter(lambda v: isinstance(v, dict | list)).map(json.dumps),
    st.sampled_from(["", " ", "\n", " /", " // c", " /* c */ ", "`", "``", "~~", "</tool"]),
    st.sampled_from(["", "```", "~~~", "``` x", "~~~~\n", "</tool_call>", ", ", "x"]),
    st.booleans(),
)
def test_one_strict_value_answers_as_the_general_loop(
    opener: str, value: str, gap: str, rest: str, eof: bool
) -> None:
    text = opener + value + gap + rest
    token = opener.strip()[:3] if opener[0] in "`~" else "<tool_call>"
    got = match_at(text, 0, token, eof)
    with patch("parsing.json.snippets._one_strict_value", return_value=None):
        assert match_at(text, 0, token, eof) == got


_MEMBER_PARTS = ["a", "b", "Tx", "$k.v-1", " ", "\n", "\t", ":", "1", "-2.5e3", "1 2", "true",
                 "None", "nullx", "x y", "#", ">", ")", "é", "\x01", "\r", "'", '"', "/", "`",
                 "[", "]", "{", "}"]  # fmt: skip
flat_members = st.lists(
    st.tuples(
        st.lists(st.sampled_from(_MEMBER_PARTS), min_size=1, max_size=4).map("".join),
        st.lists(st.sampled_from(_MEMBER_PARTS), min_size=1, max_size=4).map("".join),
        st.sampled_from([",", ", ", " ,\n", ",\t"]),
    ).map(lambda m: f"{m[0]}: {m[1]}{m[2]}"),
    max_size=4,
).map(lambda members: "{" + "".join(members))
_LAST_MEMBER = ["", "k", "k ", "k:", "k :", "k: ", "k: b", "k: tru", "k: true", "k: 1", "k: -",
                "k: b\n", "k: x y  ", "k: [", "k: '", "k /", "'k"]  # fmt: skip
flat_prefixes = st.tuples(flat_members, st.sampled_from(_LAST_MEMBER)).map("".join)


_LEADS = [
    '"action":"text_response","text_response"', "'a':'x\"y', \"k\"", '"a": "b{"c" , "k"',
    '"a":"b","c":"d","e":"f","g":"h","k"', '"a":"b"}, "k"', '"a":"b", , "k"', '"a":"b" "k"',
    '"a":"b",\n"k"', '"a":"b", "k":"', '"a":"b", {"k"', '"a":"b,", "k"',
]  # fmt: skip
_VALUE_ATOMS = [
    *"\"',:{}[]/ \n\tab1-_.$<`~\\\x01",
    '"a":', "'a':", '", ', "', ", ",{", ', "', '"}', "}", "]", ' "k" :', "//c", "/*", "é",
]  # fmt: skip
first_values = st.tuples(
    st.sampled_from(["{", "{ ", "{\n"]),
    st.sampled_from(['"a"', "'a'", '"k y"', '""', "a", *_LEADS]),
    st.sampled_from([":", " : ", ":\n"]),
    st.sampled_from(['"', "'", ' "']),
    st.lists(st.sampled_from(_VALUE_ATOMS), max_size=25).map("".join),
).map("".join)


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(first_values, st.booleans())
@example('{"a":"b",{"a":"b",', True)
@example('{"action":"text_response","text_response":"{"action":', False)
@example('{"action": "tool_call", {"action": "tool_call", ', False)
@example('{"a":"{"a":"{"a":"', True)
@example("{'a':'{'a':'{'a':'", False)
@example('{"a":"b" "c":', True)
@example('{"a":"b", "c" :', False)
def test_first_value_reject_is_what_every_pass_answers(text: str, eof: bool) -> None:
    """An object whose first string value ends at a quote before ``:`` (`_FIRST_VALUE_REJECT`)
    is rejected as the strict, lossless, escaped-quote and tolerant passes reject it, in a
    whole reply and at every length of a streamed one (never pending)."""
    if _FIRST_VALUE_REJECT.match(text) is None:
        return
    with patch("parsing.json.shortcuts._REJECT_AT_START", re.compile(r"(?!)")):
        assert match_bare_at(text, 0, eof=eof) == NoMatch()


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(first_values)
@example('{"a":"b",{"a')
@example('{"a":"b",{')
@example("{'a':'{'a")
@example('{"a":"b" x "c')
@example('{"a":"b",{"a"')
@example('{"a":"b" , ')
def test_first_value_pending_is_what_every_pass_answers(text: str) -> None:
    """A streamed text ending inside an object's first string value whose quotes are all kept
    (`_FIRST_VALUE_PENDING`) is pending, as the passes answer it."""
    if _FIRST_VALUE_PENDING.match(text) is None:
        return
    with patch("parsing.json.shortcuts._PENDING_AT_START", re.compile(r"(?!)")):
        assert match_bare_at(text, 0, eof=False) is PENDING


line_values = st.tuples(
    st.sampled_from(['{"action":', "{'a': ", '{ "a" :\n', "{a:", '{"a":"b", "c":']),
    st.sampled_from([*"`~<x1-tTN:{[,\"'\\/ ", "```", "~~~", "é"]),
    st.lists(
        st.sampled_from([*"`~<x1-t: \t\r", "```", "é", "{", "]", ",", '"', "\\", "/"]), max_size=6
    ),
    st.sampled_from(["\n", "\r\n", " \n", ""]),
    st.sampled_from(["", " ", "\n\t", "\f"]),
    st.sampled_from([*"{[x`~<}],\"'/1", "//c\n", '"k": 1}', ""]),
    st.sampled_from(["", "}", '"a":1}', "\n```"]),
).map(lambda p: p[0] + p[1] + "".join(p[2]) + "".join(p[3:]))


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(line_values, st.booleans())
@example('{"action":```\n{"action":```\n', True)
@example('{"action": ~~~\n<tool_call>', False)
def test_line_value_reject_is_what_every_pass_answers(text: str, eof: bool) -> None:
    """An object whose first value is unquoted up to its line's end, then what cannot
    continue the object (`_LINE_VALUE_REJECT`): rejected as the passes reject it."""
    if _LINE_VALUE_REJECT.match(text) is None:
        return
    with patch("parsing.json.shortcuts._REJECT_AT_START", re.compile(r"(?!)")):
        assert match_bare_at(text, 0, eof=eof) == NoMatch()


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(line_values)
@example('{"action":```\n')
@example('{"action": ~~')
def test_line_value_pending_is_what_every_pass_answers(text: str) -> None:
    """A streamed text ending on an object's first value, unquoted, or after its line
    (`_LINE_VALUE_PENDING`): pending, as the passes answer it."""
    if _LINE_VALUE_PENDING.match(text) is None:
        return
    with patch("parsing.json.shortcuts._PENDING_AT_START", re.compile(r"(?!)")):
        assert match_bare_at(text, 0, eof=False) is PENDING


opened_values = st.tuples(
    st.sampled_from(["{", "{ ", "{\n"]),
    st.sampled_from(['"a"', "'a'", '""', "a", *_LEADS]),
    st.sampled_from([":", " : ", ":\n"]),
    st.sampled_from(["{", " {", "[", '"{', "{\n"]),
    st.sampled_from(["", " ", "\t\n"]),
    st.sampled_from([*"{[}]\"'a/1", "//c\n", ""]),
    st.sampled_from(["", "}", '"a":1}}', "\n```", '{"a":"b",', '"k": {']),
).map("".join)


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(opened_values, st.booleans())
@example('{"name":"x","arguments":{{"name":"x","arguments":{{', True)
@example('{"a":"b{"c" , "k":{[', False)
def test_opened_value_reject_is_what_every_pass_answers(text: str, eof: bool) -> None:
    """An object whose first value is an object opening with a bracket where a key should
    be (`_OPENED_VALUE_REJECT`): rejected as the passes reject it, both objects open."""
    m = _OPENED_VALUE_REJECT.match(text)
    if m is None:
        return
    expected = NoMatch((m.start("inner"),))
    assert match_bare_at(text, 0, eof=eof) == expected
    with patch("parsing.json.shortcuts._REJECT_AT_START", re.compile(r"(?!)")):
        assert match_bare_at(text, 0, eof=eof) == expected


_PREFIX_ATOMS = [
    '"k":', '"k" : ', '"v",', '"v" ,\n', "1,", "-2.5e3 ,", "true,", "null,", "{", "[", '"s",',
    '"a\\"b":', '"\\u00e9",', " ", "\n", "}", "]", "},", "],", '"x"', ":", ",", "'", "x", "/",
    "1", "tr", '"', "{}", "[],", "//c\n",
]  # fmt: skip
opened_prefixes = st.tuples(
    st.lists(st.sampled_from(_PREFIX_ATOMS), max_size=20).map("".join),
    st.sampled_from(["{", "{ ", "{\n"]),
    st.sampled_from(["{", "[", ""]),
    st.sampled_from(["", "}", '"a":1}', "]", "{", ' "k"', "'"]),
).map(lambda parts: "{" + "".join(parts))


@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(opened_prefixes, st.booleans())
@example('{"name":"x","arguments":{{"name":"x","arguments":{{', True)
@example('{"a":[1,{"b":true,"c":{[', False)
@example('{"a":{"b":"x"},"c":{{', True)  # a closer before: not taken
@example('{"a":{', True)  # the end of the text: not taken
@example('{"a":{', False)
def test_bracket_for_key_is_what_every_pass_answers(text: str, eof: bool) -> None:
    """Strict JSON failing at a bracket where an object wants its first key, with no closer
    before (`_bracket_for_key`): the tolerant pass rejects the document there, every
    bracket before open, in a whole reply and in a streamed one."""
    strict = _strict(text, 0, streaming=not eof)
    if strict is not False:
        return
    early = _bracket_for_key(text, 0, _failure(text, 0))
    if early is None:
        return
    with patch("parsing.json.snippets._bracket_for_key", new=lambda *_: None):
        assert match_bare_at(text, 0, eof=eof) == early


@FAST
@given(flat_prefixes)
@example("{a: b, ")
@example("{a: ")
@example("{a:")
@example("{a: 1 2, ")  # a number then more: an unquoted value in an object
@example("{a: nullx, b: True ,\n")
def test_flat_pending_is_what_every_pass_answers(text: str) -> None:
    if _FLAT_PENDING.match(text) is None:
        return
    with patch("parsing.json.shortcuts._FLAT_PENDING", re.compile(r"(?!)")):
        assert match_bare_at(text, 0, eof=False) is PENDING


_FIRST_KEYS = [
    "",
    '"action":',
    ' "a" : ',
    '"a":\n',
    '"a"',
    '"a```":',
    '"a\\"b":',
    '"":',
    "'a':",
    "a:",
]


@FAST
@given(
    st.sampled_from(["{", "["]),
    st.sampled_from(_FIRST_KEYS),
    st.lists(st.sampled_from([" ", "\n", "\t", "/", "*", "//c\n", "/*c*/", "x", '"'])).map("".join),
    st.sampled_from(["```", "~~~", "</tool_call>"]),
    st.sampled_from(["", "`", "```", "\n", " x", "}"]),
    st.booleans(),
)
@example(bracket="{", key="", gap="\n", close="~~~", rest="json\n", eof=False)
@example(bracket="[", key="", gap=" /*c*/ ", close="```", rest="", eof=True)  # comment: not taken
@example(bracket="{", key='"action":', gap="", close="```", rest="\n", eof=True)
def test_cut_at_once_is_what_the_tolerant_pass_reads(
    bracket: str, key: str, gap: str, close: str, rest: str, eof: bool
) -> None:
    text = "x" + bracket + key + gap + close + rest
    got = _cut_at_once(text, 1, close)
    if got is not None:
        assert got == parse_tolerant(text, 1, eof=eof, marker=close)


@FAST
@given(
    st.sampled_from(["```json\n", "~~~json5 ", "```JSON\n  ", "<tool_call>", "<tool_use>"]), body
)
@example("```json\n", '{"a": 1}')
@example("<tool_call>", '{"name": "x"} junk {')
def test_a_region_without_its_closer_yet_is_pending(opener: str, rest: str) -> None:
    text = opener + "{" + rest
    close = "</" + opener[1:] if opener[0] == "<" else opener[:3]
    if close in text[len(opener) :]:
        return
    token = opener[:3] if opener[0] != "<" else opener
    with patch("parsing.json.snippets._no_closer_yet", new=lambda *_: False):
        assert match_at(text, 0, token, eof=False) is PENDING  # what the general path answers


@FAST
@given(
    st.sampled_from(["```json\n", "```\n", "~~~~json ", "<tool_call>", "```json\n/*c*/"]),
    st.sampled_from(["{", "["]),
    st.sampled_from(_FIRST_KEYS),
    st.sampled_from(["", " ", "\n", "\r\n\t", "\f", "\u2003"]),
    st.sampled_from(["```", "~~~", "~~~~", "</tool_call>", "``"]),
    st.sampled_from(
        ["", "`", "\n", " x", "\n```\n", ' {"a": 1}', '\n{"action":```\n'],
    ),
    st.booleans(),
)
def test_a_value_cut_at_once_reads_as_the_general_loop(
    opener: str, bracket: str, key: str, gap: str, close: str, rest: str, eof: bool
) -> None:
    text = opener + bracket + key + gap + close + rest
    token = "<tool_call>" if opener[0] == "<" else opener[:3]
    for cut in range(len(opener) + 1, len(text) + 1):  # (and every text a stream sees)
        got = match_at(text[:cut], 0, token, eof and cut == len(text))
        with patch("parsing.json.snippets._cut_at_once", new=lambda *_: None):
            assert match_at(text[:cut], 0, token, eof and cut == len(text)) == got


@FAST
@given(
    st.sampled_from(
        ['{"a": "', '["', '{"a": ["', '{"a": {"b": "', '[{"a": [1, {"c": "', '{"x": [["']
    ),
    quoted,
    st.sampled_from(["", '"}', '"]', '"}}', '"]}', '"}\n```', '"} tail', '"}, x', '"}]}']),
    st.sampled_from([None, "```", "</tool_call>"]),
)
@example('{"a": "', 'Next "big" file', '"}', None)
@example('{"a": "', 'x "r", encoding', '"}', "```")
@example('{"a": "', 'x["k"] = {"b": 1}', '"}', None)  # rejected at the ":"
@example('{"a": "', ', ""]", "k": "a"},"b', '"} tail', None)  # the last quote is kept
def test_escaped_quotes_read_as_the_tolerant_pass(
    start: str, rest: str, end: str, marker: str | None
) -> None:
    """Where the inner quotes escaped at C speed give an answer, it is the tolerant pass's."""
    text = start + rest + end
    error = _strict_error(text, 0)
    if error is None:
        return
    got = escaped_quotes_at(text, 0, error, marker)
    if got is not None:
        assert repr(got) == repr(parse_tolerant(text, 0, marker=marker))


def test_escaped_quotes_answer_inner_quotes_and_code() -> None:
    for text in (
        '{"m": "Next "big" file"}',
        '["a "b" c", 1]',
        '{"c": "f("r", x) y"}',
        '{"c": "x["k"] = 1"}',  # no array open: the "]" closes nothing, the quote is kept
        '{"c": "{"b": 1}"}',  # rejected at the ":"
    ):
        got = escaped_quotes_at(text, 0, _strict_error(text, 0) or (0, ""))
        assert got is not None
        assert repr(got) == repr(parse_tolerant(text, 0))
    assert escaped_quotes_at('{"c": "a "b"', 0, _strict_error('{"c": "a "b"', 0) or (0, "")) is None


_CODE = [
    *'"\':,{}[] /', "\\n", "\\n", "a", "x)", "1", "None", '"k": ', '": ', '" : ', '"/*c*/:',
    '"]', '"}', ', "k": "', "\\\"", "\n", "```", "</tool_call>",
]  # fmt: skip
code = st.lists(st.sampled_from(_CODE), max_size=30).map("".join)


@FAST
@given(
    st.sampled_from(['{"c": "', '{"a": 1, "c": "', '{"f": {"c": "', '[{"c": "', "{'c': '"]),
    code,
    st.sampled_from(['"}', '"}}', '"}]', "'}", '", "d": 1}', ""]),
    st.sampled_from(["\n```", "\n</tool_call>", "\n```\nmore ```"]),
)
@example('{"c": "', 'x = {"b": 1}\\n', '"}', "\n```")
@example('{"c": "', 'print("a")\\n', '"}', "\n```")
def test_code_first_reads_as_the_two_readings(start: str, rest: str, end: str, tail: str) -> None:
    """The code reading read first answers what the default reading, then (when it is
    rejected) the code reading, answer."""
    text = start + rest + end + tail
    close = tail.strip().split("\n")[0]
    got = code_first(text, 0, close)
    if got is None:
        return
    d = parse_tolerant(text, 0, marker=close)
    ref = code_in_values(text, 0, True, close) if isinstance(d, Rejected) else d
    assert repr(got) == repr(ref)


@FAST
@given(
    st.sampled_from(['{"c": "', '{"a": 1, "c": "x\\n', '{"f": {"c": "', '[{"c": "', '{"x": [["']),
    code,
    st.sampled_from(['"}', '"}}', '"}]', '", "d": 1}', '"} tail', ""]),
    st.sampled_from(["\n```", "\n</tool_call>", "\n```\nmore ```", "```"]),
)
@example('{"c": "', 'x = {"b": 1}\\n', '"}', "\n```")  # the code reading goes on
@example('{"c": "', 'x["k"] = "a": 1', '"}', "\n```")  # a ":" outside code: rejected
def test_escaped_region_reads_as_the_two_readings(
    start: str, rest: str, end: str, tail: str
) -> None:
    """A fence or tag document read with its inner quotes escaped gives what the default
    reading, then (when it is rejected) the code reading give."""
    text = start + rest + end + tail
    close = tail.strip().split("\n")[0]
    error = _strict_error(text, 0)
    got = None if error is None else escaped_in_region(text, 0, error, close)
    if got is None:
        return
    d = parse_tolerant(text, 0, marker=close)
    ref = code_in_values(text, 0, True, close) if isinstance(d, Rejected) else d
    assert repr(got) == repr(ref)
