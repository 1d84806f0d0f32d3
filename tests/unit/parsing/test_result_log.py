"""Result-log parser on realistic stream-json logs (tests/fixtures/logs/), SPEC §4."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from parsing.result_log import (
    ErrorCode,
    ResultLogConfig,
    ResultLogError,
    parse_result_log,
)

LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "logs"
STRICT = ResultLogConfig(strict=True)


def log(name: str) -> str:
    return (LOGS / name).read_text(encoding="utf-8")


def lines(name: str) -> list[str]:
    return log(name).splitlines()


def last_object(name: str) -> dict[str, Any]:
    """The JSON object on the fixture's last line: what the parser must return as is."""
    obj: dict[str, Any] = json.loads(lines(name)[-1])
    return obj


def error_of(text: str, config: ResultLogConfig | None = None) -> ResultLogError:
    with pytest.raises(ResultLogError) as caught:
        parse_result_log(text, config)
    return caught.value


def test_stream_json_log_gives_its_final_result_unchanged() -> None:
    record = parse_result_log(log("stream_json_success.log"))
    assert record.to_json() == last_object("stream_json_success.log")
    assert record.strategy == "json_result"
    assert record.line == len(lines("stream_json_success.log"))
    assert record.warnings == ()
    assert record.subtype == "success"
    assert record.is_error is False
    assert record.session_id == last_object("stream_json_success.log")["session_id"]


def test_timestamps_levels_and_garbage_lines() -> None:
    text = log("prefixed_with_garbage.log")
    record = parse_result_log(text)
    expected_line = next(
        i for i, line in enumerate(text.splitlines(), 1) if "[09:14:48] INFO: {" in line
    )
    assert record.line == expected_line
    assert record.to_json() == json.loads(
        text.splitlines()[expected_line - 1].split("INFO: ", 1)[1]
    )


RESULT = json.dumps(
    {"type": "result", "subtype": "success", "is_error": False, "session_id": "s1", "result": "ok"}
)


@pytest.mark.parametrize(
    "prefix",
    [
        "",
        "  ",
        "[12:00:01] ",
        "[12:00:01]",
        "INFO: ",
        "info:",
        "debug: ",
        "WARNING: ",
        "[ERROR] ",
        "[12:00:01] INFO: ",
        "[9:05:07.123] debug: ",
        "INFO: [12:00:01] ",
    ],
)
def test_result_line_prefixes(prefix: str) -> None:
    record = parse_result_log("noise\n" + prefix + RESULT + "\nmore noise\n")
    assert record.result == "ok"
    assert record.line == 2


@pytest.mark.parametrize(
    "prefix",
    [
        "stdout: ",
        "[12:00:00] runner: ",
        "2025-01-01 10:00:00 ERROR: ",
        "2025-01-01T10:00:00.123Z [agent] INFO - ",
        "Result: ",
        "[2024-01-01] ",
        "x ",
        "\t",
    ],
)
def test_a_name_date_or_level_word_anywhere_before_the_object(prefix: str) -> None:
    record = parse_result_log("noise\n" + prefix + RESULT + "\nmore noise\n")
    assert record.result == "ok"
    assert record.line == 2
    assert record.warnings == ()


def test_a_brace_after_a_quote_is_inside_text_not_a_result() -> None:
    error = error_of('say "hi" ' + RESULT)
    assert error.code is ErrorCode.NO_VALID_RESULT_FOUND


def test_a_cut_off_result_line_is_a_parse_error_naming_its_line() -> None:
    error = error_of("start\nstdout: " + RESULT[:40] + "\n")
    assert error.code is ErrorCode.PARSE_ERROR
    assert error.message.startswith("line 2:")


def test_crlf_line_endings() -> None:
    text = log("stream_json_success.log").replace("\n", "\r\n")
    assert parse_result_log(text).to_json() == last_object("stream_json_success.log")


def test_plan_mode_gives_the_fixed_plan_record_and_wins_over_a_result_line() -> None:
    text = log("plan_mode.log")
    plan_line = next(
        i for i, line in enumerate(text.splitlines(), 1) if '"name":"ExitPlanMode"' in line
    )
    assistant = json.loads(text.splitlines()[plan_line - 1])
    record = parse_result_log(text)
    assert record.strategy == "plan_mode"
    assert record.line == plan_line
    assert record.to_json() == {
        "type": "result",
        "subtype": "plan_mode",
        "is_error": False,
        "session_id": assistant["session_id"],
        "result": assistant["message"]["content"][0]["input"]["plan"],
        "duration_ms": 0,
        "duration_api_ms": 0,
        "num_turns": 0,
        "total_cost_usd": 0.0,
        "usage": assistant["message"]["usage"],
    }
    assert list(record.to_json()) == [
        "type",
        "subtype",
        "is_error",
        "session_id",
        "result",
        "duration_ms",
        "duration_api_ms",
        "num_turns",
        "total_cost_usd",
        "usage",
    ]


def test_one_indicator_is_not_plan_mode() -> None:
    record = parse_result_log(log("plan_mode_one_indicator.log"))
    assert record.strategy == "json_result"
    assert record.to_json() == last_object("plan_mode_one_indicator.log")


def test_two_indicators_without_type_assistant_still_detected_as_plan_mode() -> None:
    # "name":"ExitPlanMode" + "tool_use", but the line is a user message: detected, invalid.
    line = json.dumps(
        {
            "type": "user",
            "session_id": "s",
            "message": {
                "content": [{"type": "tool_use", "name": "ExitPlanMode", "input": {"plan": "p"}}]
            },
        }
    )
    assert error_of(line).code is ErrorCode.INVALID_EXIT_PLAN_MODE


def test_plan_mode_at_any_depth_of_the_log_and_last_plan_wins() -> None:
    first = lines("plan_mode.log")
    second = [line.replace("## Plan", "## Revised plan") for line in first]
    text = "\n".join(first + lines("stream_json_success.log") * 200 + second)
    assert parse_result_log(text).result.startswith("## Revised plan")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("plan_mode_empty_plan.log", ErrorCode.MISSING_PLAN_CONTENT),
        ("plan_mode_bad_input.log", ErrorCode.INVALID_EXIT_PLAN_MODE),
        ("plan_mode_no_session.log", ErrorCode.VALIDATION_FAILED),
        ("truncated_result.log", ErrorCode.PARSE_ERROR),
        ("no_result.log", ErrorCode.NO_VALID_RESULT_FOUND),
    ],
)
def test_failures_carry_a_code_and_the_line(name: str, code: ErrorCode) -> None:
    error = error_of(log(name))
    assert error.code is code
    if code is not ErrorCode.NO_VALID_RESULT_FOUND:
        assert f"line {len(lines(name))}" in error.message
    assert str(error).startswith(code.value + ":")


@pytest.mark.parametrize("name", ["plan_mode_empty_plan.log", "plan_mode_bad_input.log"])
def test_failed_plan_mode_falls_back_to_a_json_result(name: str) -> None:
    text = log(name) + RESULT + "\n"
    record = parse_result_log(text)
    assert record.strategy == "json_result"
    assert record.result == "ok"


@pytest.mark.parametrize("text", ["", "\n\n", "   \n\t\n"])
def test_empty_logs(text: str) -> None:
    assert error_of(text).code is ErrorCode.EMPTY_LOGS


def test_lenient_mode_turns_missing_fields_into_warnings() -> None:
    record = parse_result_log(log("missing_fields.log"))
    assert record.to_json() == last_object("missing_fields.log")
    assert record.session_id is None
    assert record.is_error is None
    assert any("'is_error'" in w for w in record.warnings)
    assert any("'session_id'" in w for w in record.warnings)


def test_strict_mode_rejects_missing_fields() -> None:
    error = error_of(log("missing_fields.log"), STRICT)
    assert error.code is ErrorCode.VALIDATION_FAILED
    assert "is_error" in error.message


def test_strict_mode_rejects_wrong_types() -> None:
    bad = RESULT.replace("false", '"false"')
    assert error_of(bad, STRICT).code is ErrorCode.VALIDATION_FAILED
    record = parse_result_log(bad)
    assert any("must be a boolean" in w for w in record.warnings)


def test_strict_mode_takes_the_last_valid_result() -> None:
    text = log("stream_json_success.log") + lines("missing_fields.log")[-1] + "\n"
    strict = parse_result_log(text, STRICT)
    assert strict.to_json() == last_object("stream_json_success.log")
    assert any("skipped" in w for w in strict.warnings)
    assert parse_result_log(text).to_json() == last_object("missing_fields.log")


def test_a_truncated_last_line_falls_back_to_an_earlier_result_with_a_warning() -> None:
    text = log("stream_json_success.log") + lines("truncated_result.log")[-1] + "\n"
    record = parse_result_log(text)
    assert record.to_json() == last_object("stream_json_success.log")
    assert record.warnings == (
        f"line {len(text.splitlines())}: result line is not valid JSON; skipped",
    )


def test_custom_required_fields() -> None:
    config = ResultLogConfig(strict=True, required_fields=("type", "session_id", "total_cost_usd"))
    assert error_of(RESULT, config).code is ErrorCode.VALIDATION_FAILED
    assert parse_result_log(log("stream_json_success.log"), config).subtype == "success"


def test_error_results_are_results() -> None:
    record = parse_result_log(log("error_result.log"))
    assert record.is_error is True
    assert record.subtype == "error_max_turns"
    assert record.result is None


def test_last_result_wins_and_assistant_objects_are_excluded() -> None:
    record = parse_result_log(log("two_runs.log"))
    assert (record.session_id, record.result) == ("run-2", "second run")


def padded(head: list[str], filler_lines: int, tail: list[str]) -> str:
    filler = lines("no_result.log")
    body = (filler * (filler_lines // len(filler) + 1))[:filler_lines]
    return "\n".join(head + body + tail) + "\n"


def test_only_the_last_1000_lines_are_scanned() -> None:
    early = padded([RESULT], 1000, [])
    assert len(early.splitlines()) == 1001
    assert error_of(early).code is ErrorCode.NO_VALID_RESULT_FOUND
    just_inside = padded([RESULT], 999, [])
    assert parse_result_log(just_inside).line == 1


def test_a_late_result_in_a_long_log() -> None:
    text = padded(["noise"], 5000, [RESULT, "trailing noise"])
    record = parse_result_log(text)
    assert record.line == 5002
    assert record.result == "ok"


def test_max_lines_is_configurable() -> None:
    text = padded([RESULT], 10, [])
    assert error_of(text, ResultLogConfig(max_lines=10)).code is ErrorCode.NO_VALID_RESULT_FOUND
    assert parse_result_log(text, ResultLogConfig(max_lines=11)).result == "ok"


def test_record_is_immutable_and_to_json_is_a_copy() -> None:
    record = parse_result_log(RESULT)
    copy = record.to_json()
    copy["result"] = "changed"
    assert record.to_json()["result"] == "ok"
    with pytest.raises(TypeError):
        record.data["result"] = "changed"  # type: ignore[index]
