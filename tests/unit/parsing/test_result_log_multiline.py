"""Pretty-printed (multi-line) result and plan-mode objects, and prefixed lines (issue 13.7)."""

from __future__ import annotations

import json

import pytest

from parsing.result_log import ErrorCode, ResultLogError, parse_result_log

RESULT = {
    "type": "result",
    "subtype": "success",
    "is_error": False,
    "session_id": "s-42",
    "result": 'Done: {braces} and [brackets] in text,\nand an escaped \\" quote',
    "usage": {"input_tokens": 10, "output_tokens": [1, 2]},
}
PLAN = {
    "type": "assistant",
    "message": {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Here is the plan."},
            {"type": "tool_use", "name": "ExitPlanMode", "input": {"plan": "1. a\n2. b"}},
        ],
        "usage": {"output_tokens": 7},
    },
    "session_id": "s-plan",
}


def pretty(value: object, prefix: str = "", indent: int = 2) -> str:
    return prefix + json.dumps(value, indent=indent)


@pytest.mark.parametrize(
    "prefix", ["", "stdout: ", "[12:00:00] runner: ", "2025-01-01 10:00:00 INFO: "]
)
@pytest.mark.parametrize("indent", [2, 4, 0])
def test_a_pretty_printed_result_parses(prefix: str, indent: int) -> None:
    text = "\n".join(["starting", pretty(RESULT, prefix, indent), "bye"])
    record = parse_result_log(text)
    assert record.to_json() == RESULT
    assert record.strategy == "json_result"
    assert record.line == 2


def test_a_pretty_printed_plan_mode_object_parses() -> None:
    text = "\n".join([
        json.dumps({"type": "system", "subtype": "init", "session_id": "s-plan"}),
        pretty(PLAN, "[12:00:01] runner: "),
        json.dumps({**RESULT, "session_id": "s-plan"}),
    ])  # fmt: skip
    record = parse_result_log(text)
    assert record.strategy == "plan_mode"
    assert record.result == "1. a\n2. b"
    assert record.session_id == "s-plan"
    assert record.line == 2


def test_the_last_of_several_pretty_printed_results_wins() -> None:
    first = {**RESULT, "result": "first"}
    text = "\n".join([pretty(first), "noise {", pretty(RESULT, "stdout: ")])
    record = parse_result_log(text)
    assert record.result == RESULT["result"]
    assert record.line == len(pretty(first).splitlines()) + 2


def test_a_cut_off_pretty_printed_result_is_a_parse_error_at_its_first_line() -> None:
    lines = pretty(RESULT).splitlines()
    text = "\n".join(["log start", *lines[:5]])
    with pytest.raises(ResultLogError) as caught:
        parse_result_log(text)
    assert caught.value.code is ErrorCode.PARSE_ERROR
    assert caught.value.message.startswith("line 2:")


def test_a_cut_off_line_does_not_swallow_the_complete_lines_after_it() -> None:
    text = "\n".join([json.dumps(RESULT)[:50], json.dumps({**RESULT, "result": "second"})])
    record = parse_result_log(text)
    assert record.result == "second"
    assert record.line == 2
    assert record.warnings == ()


def test_a_level_word_mid_line_before_a_single_line_result() -> None:
    text = "2025-01-01 10:00:00 ERROR: " + json.dumps({**RESULT, "is_error": True})
    record = parse_result_log(text)
    assert record.is_error is True
