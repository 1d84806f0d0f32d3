"""Property tests of the result-log parser: noise never changes the result, never crashes.

Examples per property: 60 by default; set AGENT_LS_LONG_PROPS=1 for 2000.
"""

from __future__ import annotations

import json
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from parsing.result_log import ResultLogError, parse_result_log

EXAMPLES = 2000 if os.environ.get("AGENT_LS_LONG_PROPS") else 60

# Single-line text: no characters that str.splitlines() treats as line breaks.
line_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Zl", "Zp", "Cs")), max_size=80
)
timestamp = st.builds(
    "[{:02d}:{:02d}:{:02d}] ".format,
    st.integers(0, 23),
    st.integers(0, 59),
    st.integers(0, 59),
)
level = st.sampled_from(["INFO: ", "debug: ", "WARN: ", "error: ", "[INFO] ", "TRACE:"])
prefix = st.one_of(st.just(""), timestamp, level, st.tuples(timestamp, level).map("".join))
result_object = st.fixed_dictionaries(
    {
        "type": st.just("result"),
        "subtype": st.sampled_from(["success", "error_max_turns", "error_during_execution"]),
        "is_error": st.booleans(),
        "session_id": st.uuids().map(str),
        "result": line_text,
        "num_turns": st.integers(0, 500),
    }
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    before=st.lists(line_text, max_size=20),
    after=st.lists(line_text, max_size=20),
    obj=result_object,
    pre=prefix,
)
def test_noise_around_a_result_does_not_change_it(
    before: list[str], after: list[str], obj: dict[str, object], pre: str
) -> None:
    # Noise lines that could themselves be read as results are out of scope here.
    noise = [n for n in before + after if '"result"' not in n and "ExitPlanMode" not in n]
    text = "\n".join([*noise[: len(before)], pre + json.dumps(obj), *noise[len(before) :]])
    record = parse_result_log(text)
    assert record.to_json() == obj
    assert record.warnings == ()


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(st.one_of(line_text, result_object.map(json.dumps)), max_size=30))
def test_any_input_gives_a_record_or_a_coded_error(lines: list[str]) -> None:
    try:
        record = parse_result_log("\n".join(lines))
    except ResultLogError:
        return  # a coded failure is an allowed outcome; any other exception fails the test
    assert record.to_json()["type"] == "result"


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(result_object, min_size=1, max_size=8), st.lists(line_text, max_size=5))
def test_the_last_result_wins(objs: list[dict[str, object]], noise: list[str]) -> None:
    clean = [n for n in noise if '"result"' not in n and "ExitPlanMode" not in n]
    text = "\n".join([json.dumps(o) for o in objs] + clean)
    assert parse_result_log(text).to_json() == objs[-1]
