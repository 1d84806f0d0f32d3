"""Fuzz target for the reply parser (opt-in: AGENT_LS_FUZZ=1; examples per test from
AGENT_LS_FUZZ_EXAMPLES, default 2000). bench/fuzz_parse.py runs it and prints timings.

Properties on arbitrary, mutated and huge inputs (`properties.check`): never raises, keeps
every character (spans tile the reply), snippet spans nest inside the reply, streaming in
arbitrary chunks gives the same blocks. Inputs that ever failed live in tests/fuzz/corpus/
(replayed on every run by test_fuzz_corpus.py, and mutated here): add each new failure's
shrunk form there.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.properties import check
from tests.fuzz.test_fuzz_corpus import CASES
from tests.unit.parsing.support import replies

pytestmark = pytest.mark.skipif(
    not os.environ.get("AGENT_LS_FUZZ"), reason="fuzzing is opt-in: set AGENT_LS_FUZZ=1"
)

LONG = settings(
    max_examples=int(os.environ.get("AGENT_LS_FUZZ_EXAMPLES") or 2000),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)

_ATOMS = [
    *'{}[]"\',:\\ \n\tab0-/*`~<>',
    "<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_use>", "```json\n", "```",
    "~~~", "True", "None", "null", '"action": "text_response"', '{"name": "x", "arguments": {',
    "\\u00e9", "\\ud83d", "é", "😀",
]  # fmt: skip
noise = st.lists(st.sampled_from(_ATOMS), max_size=200).map("".join)


_SEEDS = [path.read_bytes().decode("utf-8") for path in CASES]
"""Every input that ever failed (tests/fuzz/corpus): mutated like generated replies."""


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A generated reply or a corpus input with random cuts, duplications and insertions."""
    text = draw(st.one_of(replies, st.sampled_from(_SEEDS)))
    for _ in range(draw(st.integers(0, 6))):
        if not text:
            break
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 40)))
        op = draw(st.sampled_from(["delete", "dup", "insert", "cut"]))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "dup":
            text = text[:j] + text[i:j] + text[j:]
        elif op == "insert":
            text = text[:i] + draw(st.sampled_from(_ATOMS)) + text[i:]
        else:
            text = text[:i]
    return text


@st.composite
def huge(draw: st.DrawFn) -> str:
    atom = draw(st.sampled_from(["[", "{", '{"', '{"a":', "[{", '"', "`", "<think>", "{x} "]))
    return atom * draw(st.integers(1, 20_000)) + draw(noise)


@LONG
@given(st.one_of(noise, st.text(max_size=300), mutated()), st.integers(1, 64))
def test_fuzz_small(text: str, cut_every: int) -> None:
    check(text, cut_every)


@settings(LONG, max_examples=max(20, LONG.max_examples // 50))
@given(huge(), st.integers(1, 5000))
def test_fuzz_huge(text: str, cut_every: int) -> None:
    check(text, cut_every)
