"""Resumed looks (parsing/resume.py): a tolerant reading suspended by `NeedMore` and resumed
over the longer text reads what a fresh reading of that text reads, at every prefix of every
reply; and the latency the stream promises."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsing import StreamParser, resume
from parsing.json.scan import NeedMore
from parsing.json.snippets import decode_at
from parsing.json.tolerant import Decoded, Rejected, parse_tolerant
from tests.fuzz.test_fuzz_parse import mutated, noise
from tests.unit.parsing.support import canon, replies

_MARKERS = st.sampled_from([None, "```", "</tool_call>"])


def _read(text: str, start: int, eof: bool, marker: str | None) -> Decoded | Rejected | str:
    try:
        return parse_tolerant(text, start, eof=eof, marker=marker)
    except NeedMore:
        return "need more"


def _same(a: Decoded | Rejected | str, b: Decoded | Rejected | str) -> bool:
    """The same reading (the fixes' names aside: only whether it was repaired shows)."""
    if isinstance(a, Decoded) and isinstance(b, Decoded):
        return (canon(a.value), a.start, a.end, a.repaired, a.truncated) == (
            canon(b.value),
            b.start,
            b.end,
            b.repaired,
            b.truncated,
        )
    return type(a) is type(b) and a == b


def _decode(text: str, start: int, eof: bool, marker: str | None) -> Decoded | Rejected | str:
    """What a look runs: strict, then lossless, then tolerant (resumed)."""
    try:
        return decode_at(text, start, eof=eof, marker=marker)
    except NeedMore:
        return "need more"


def _resumed_prefixes(text: str, start: int, step: int, marker: str | None) -> None:
    resumes = resume.Resumes()
    for stop in [*range(start + 1, len(text), step), len(text)]:
        prefix, eof = text[:stop], stop == len(text)
        token = resume.enter(resumes, prefix)
        try:
            resumed = _read(prefix, start, eof, marker)
            decoded = _decode(prefix, start, eof, marker)
        finally:
            resume.leave(token)
        fresh = _read(prefix, start, eof, marker)
        assert _same(resumed, fresh), (prefix, resumed, fresh)
        fresh = _decode(prefix, start, eof, marker)
        assert _same(decoded, fresh), (prefix, decoded, fresh)


EXAMPLES = int(os.environ.get("AGENT_LS_FUZZ_EXAMPLES") or 400)
"""Examples per run (the opt-in fuzz runs raise it with AGENT_LS_FUZZ_EXAMPLES)."""


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(replies, noise, mutated()), st.integers(1, 9), _MARKERS, st.data())
def test_resumed_reading_reads_what_a_fresh_one_reads(
    text: str, step: int, marker: str | None, data: st.DataObject
) -> None:
    starts = [i for i, c in enumerate(text) if c in "{["]
    if not starts:
        return
    start = data.draw(st.sampled_from(starts))
    _resumed_prefixes(text, start, step, marker)


def test_a_key_cut_off_after_a_string_waits_for_its_colon() -> None:
    # "0000" then "arguments: the quote after 0000 ends the value only if a key follows:
    # decided on '"argu' it was read as a kept quote, and the document then rejected
    text = '{"name":"0000""arguments": {"0"//'
    for step in (1, 2, 3, 5):
        _resumed_prefixes(text, 0, step, None)


def test_a_key_cut_after_a_lone_backslash_waits_for_its_next_character() -> None:
    # the key "\\arguments" cut after its first backslash: a key being typed was not seen
    # there, so the quote after the value "a" was kept (the value read on), a decision the
    # next character undoes: the reading resumed from it was rejected at the key's ':'
    # where a fresh one reads a key (found by the property below)
    text = (
        'Here:\n```python\n# a ``` fence\nx = {"action": "text_response", "text_response": '
        '"hi"}\n```\nDone <tool_call>{"name": "a", "\\\\arguments": {}}</tool_call>'
    )
    for step in (1, 2, 3, 5):
        for marker in (None, "</tool_call>"):
            _resumed_prefixes(text, 105, step, marker)
    _resumed_prefixes('{"a": "x", "\\\\b": 1}', 0, 1, None)
    _resumed_prefixes("{'a': 'x', '\\\\b': 1}", 0, 1, None)
    _resumed_prefixes('{"a": "x" "\\\\b": 1}', 0, 1, None)


def _released_by(chunks: list[str]) -> list[int]:
    """After each chunk, how many characters of text have been released so far."""
    parser, released, out = StreamParser(), 0, []
    for chunk in chunks:
        released += sum(b.end - b.start for b in parser.feed(chunk))
        out.append(released)
    return out


def test_prose_after_a_rejected_candidate_is_released_within_32_characters() -> None:
    # "{a: b, not" cannot be JSON from the "t" on; fed one character at a time, the text is
    # released at most 32 characters later (a look at every delta cost more than the delta)
    reply = "See {a: b, not json at all, just words that go on and on for a while."
    released = _released_by(list(reply))
    decided = reply.index("not") + 1
    assert released[decided + 32] >= decided


@pytest.mark.parametrize("size", range(1, 80, 3))
def test_a_document_is_released_when_its_closing_brace_arrives(size: int) -> None:
    # fed one character at a time: at every size, not only where the look schedule happens
    # to fall on the closing brace (it did not for 3 of these sizes)
    doc = '{"action": "text_response", "text_response": "' + "x } ] y " * size + '"}'
    reply = "Plan: " + doc + " and then more prose"
    released = _released_by(list(reply))
    end = len("Plan: ") + len(doc)
    assert released[end - 1] >= end  # the chunk holding the closing brace releases it


@pytest.mark.parametrize("delta", [1, 2, 3, 5, 7, 16, 24])
@pytest.mark.parametrize("fence", ["```", "~~~", "  ```"])
def test_a_cut_off_document_in_a_fence_is_released_once_its_fence_closes(
    delta: int, fence: str
) -> None:
    # a bracket stays open to the end, so only the closing fence line may end the region:
    # its characters must be watched even split across deltas ("\n``" then "`\n")
    doc = '{"action": "text_response", "text_response": "' + "hello " * 40 + '"'
    reply = f"Here:\n{fence.strip()}json\n{doc}\n{fence}\n" + "more prose " * 12
    chunks = [reply[i : i + delta] for i in range(0, len(reply), delta)]
    released = _released_by(chunks)
    end = reply.index("more prose")  # the region with its closing fence line
    # the promised delay: 1/8 of the pending candidate, at least 32 characters (a look at
    # every delta would cost more than the delta); the rest of the reply is 132 characters
    after = (end + max(32, end // 8)) // delta  # the chunk holding that character
    assert released[after] >= end
