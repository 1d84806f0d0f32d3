"""Stream == whole where the repair path decides (issue 21 item 9): the server runs what the
stream parser yields while ``agent-ls parse`` shows the whole-reply result, so a document in
a fence or tag whose body only the lossless fence reading (`_whole_body`) or the reading with
code in its values (a ``\\n`` escape on its line) accepts must be read alike in every
chunking. bench/stream_whole.py runs the same property on a million generated replies."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parsing import StreamParser, parse_reply
from parsing.json.lossless import lossless_loads, may_load
from parsing.json.scan import next_found
from tests.unit.parsing.support import normalise

_KEYS = ['"action"', '"name"', '"arguments"', '""', '"\n"', '"a\nb"', "e"]
_VALUES = [
    '"tool_call"', "{}", '{"":{}}', '""', '"":"', '"x\\n"', "e", '"":""', '"a": 1', "[1]",
]  # fmt: skip


@st.composite
def _bodies(draw: st.DrawFn) -> str:
    """A document's start, then drawn members (keys with raw newlines, values with quotes
    before ``:`` and ``\\n`` escapes), maybe cut short."""
    head = draw(st.sampled_from(['{"action":"tool_call",', '{"name":', '{"name":e,"arguments":{']))
    pairs = draw(st.lists(st.tuples(st.sampled_from(_KEYS), st.sampled_from(_VALUES)), max_size=3))
    seps = draw(st.sampled_from([",", ""]))
    body = head + seps.join(f"{k}:{v}" for k, v in pairs) + draw(st.sampled_from(["}", "", "}}"]))
    cut = draw(st.integers(0, len(body)))
    return body if draw(st.booleans()) else body[: max(1, cut)]


def _streamed(text: str, size: int) -> list[object]:
    parser, out = StreamParser(), []
    for i in range(0, len(text), size):
        out += parser.feed(text[i : i + size])
    return normalise(out + parser.close())


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.sampled_from(["```", "```\n", "```json\n", "~~~", "~~~\n", "<tool_call>"]),
    _bodies(),
    st.sampled_from(["", "```", "\n```", "~~~", "\n~~~", "</tool_call>", "```\nmore"]),
    st.sampled_from([1, 2, 7, 16]),
)
@example("~~~\n", '{"action":"tool_call","\n":{},"\n":{}}', "\n~~~", 1)
@example("```\n", '{"action":"tool_call","name":"":""e:"x\\n""arguments":{"":{}}', "```\nmore", 7)
def test_region_documents_stream_as_whole(opener: str, body: str, close: str, size: int) -> None:
    text = opener + body + close
    assert _streamed(text, size) == normalise(parse_reply(text))


def test_raw_newline_key_in_a_fence_streams_as_whole() -> None:
    # the smallest case of the issue: the fence's lossless reading accepts the key holding a
    # raw newline (the whole reply's action); the stream's tolerant reading rejected it
    text = '```{"action":"tool_call","\n":{"":{}}}```'
    whole = normalise(parse_reply(text))
    assert any(not isinstance(b, str) for b in whole)
    for size in (1, 7, 16, len(text)):
        assert _streamed(text, size) == whole


def test_code_reading_waits_for_its_lines() -> None:
    # the quote before ':' is a character in a value holding lines (the \n escape comes
    # later): the stream decided "no lines" before it came and left the fence as text
    text = '```{"name":"":""arguments":{"\\n'
    whole = normalise(parse_reply(text))
    assert any(not isinstance(b, str) for b in whole)
    for size in (1, 7, 16):
        assert _streamed(text, size) == whole


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet="a\n\\", max_size=30), min_size=1, max_size=3),
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 40)), max_size=12),
)
def test_next_found_answers_as_find(texts: list[str], asks: list[tuple[int, int]]) -> None:
    # (the memory of the last answer spans readings of one text, never two texts)
    for which, at in asks:
        text = texts[which % len(texts)]
        for needle in ("\n", "\\n"):
            found = text.find(needle, at)
            assert next_found(text, needle, at) == (found if found >= 0 else len(text))


def test_an_undecodable_fence_body_streams_before_its_closer() -> None:
    # it waits for the region's first closer only while the fence's lossless reading of the
    # body up to it may still accept it: "{x" never is, so the code streams as it comes
    text = "```\n{x = 1;\n" + "let y = {a: 1};\n" * 20
    parser, released = StreamParser(), 0
    for i in range(0, len(text), 16):
        released += sum(len(b.text) for b in parser.feed(text[i : i + 16]))
    assert released >= len(text) // 2


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from([*'{}[]",: \n/*x1', "True", "//c\n", '"a"', "\t"]), max_size=25),
    st.lists(st.sampled_from([*'{}[]",: \n/*x1', "True", '"a"']), max_size=25),
)
def test_may_load_is_false_only_where_no_continuation_loads(
    head: list[str], tail: list[str]
) -> None:
    body = "".join(head)
    if lossless_loads(body + "".join(tail)) is not None:
        assert may_load(body)
