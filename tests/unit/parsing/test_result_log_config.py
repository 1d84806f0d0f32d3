"""Result-log parser settings (environment overrides) and its deadline / cancellation."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from parsing.result_log import (
    STEP_LINES,
    ErrorCode,
    ResultLogConfig,
    ResultLogConfigError,
    ResultLogError,
    parse_duration,
    parse_result_log,
    parse_result_log_async,
)

LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "logs"
TINY = ResultLogConfig(timeout=1e-9)


def big_log() -> str:
    """Many steps of work: a realistic conversation repeated, the result at the end."""
    body = (LOGS / "no_result.log").read_text(encoding="utf-8") * (20 * STEP_LINES // 12)
    return body + (LOGS / "stream_json_success.log").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30s", 30),
        ("500ms", 0.5),
        ("2m", 120),
        ("1h", 3600),
        ("30", 30),
        ("1.5", 1.5),
        (" 10S ", 10),
        ("250 ms", 0.25),
        (".5s", 0.5),
    ],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "abc", "-1s", "0", "0ms", "10x", "s", "1e3", "30 seconds"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(ValueError, match="duration"):
        parse_duration(text)


def test_defaults() -> None:
    config = ResultLogConfig.from_env({})
    assert config == ResultLogConfig()
    assert (config.timeout, config.strict, config.max_lines) == (30.0, False, 1000)
    assert config.required_fields == ("type", "subtype", "is_error", "session_id")


@pytest.mark.parametrize(
    ("strict", "expected"),
    [("true", True), ("TRUE", True), ("1", True), ("false", False), ("0", False), ("no", False)],
)
def test_environment_overrides(strict: str, expected: bool) -> None:
    env = {
        "AGENT_LS_PARSER_TIMEOUT": "500ms",
        "AGENT_LS_PARSER_STRICT": strict,
        "AGENT_LS_PARSER_REQUIRED_FIELDS": "type, session_id",
    }
    config = ResultLogConfig.from_env(env)
    assert config.timeout == 0.5
    assert config.strict is expected
    assert config.required_fields == ("type", "session_id")


def test_environment_overrides_a_base_config() -> None:
    base = ResultLogConfig(strict=True, max_lines=50)
    config = ResultLogConfig.from_env({"AGENT_LS_PARSER_TIMEOUT": "2m"}, base)
    assert (config.timeout, config.strict, config.max_lines) == (120.0, True, 50)


def test_reads_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_LS_PARSER_STRICT", "1")
    assert ResultLogConfig.from_env().strict is True


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("AGENT_LS_PARSER_TIMEOUT", "soon"),
        ("AGENT_LS_PARSER_TIMEOUT", "-5s"),
        ("AGENT_LS_PARSER_STRICT", "maybe"),
        ("AGENT_LS_PARSER_REQUIRED_FIELDS", " , "),
    ],
)
def test_bad_environment_values_name_the_variable(variable: str, value: str) -> None:
    with pytest.raises(ResultLogConfigError) as caught:
        ResultLogConfig.from_env({variable: value})
    assert caught.value.variable == variable
    assert str(caught.value).startswith(variable + ":")
    assert repr(value) in str(caught.value)


@pytest.mark.parametrize("kwargs", [{"timeout": 0}, {"timeout": -1}, {"max_lines": 0}])
def test_invalid_config_values(kwargs: dict[str, float]) -> None:
    with pytest.raises(ResultLogConfigError):
        ResultLogConfig(**kwargs)  # type: ignore[arg-type]


def test_sync_parse_honours_the_deadline() -> None:
    text = big_log()
    assert parse_result_log(text).subtype == "success"
    with pytest.raises(ResultLogError) as caught:
        parse_result_log(text, TINY)
    assert caught.value.code is ErrorCode.TIMEOUT


async def test_async_parse_gives_the_same_records_as_sync() -> None:
    for path in sorted(LOGS.glob("*.log")):
        text = path.read_text(encoding="utf-8")
        try:
            expected: object = parse_result_log(text).to_json()
        except ResultLogError as exc:
            expected = exc.code
        try:
            got: object = (await parse_result_log_async(text)).to_json()
        except ResultLogError as exc:
            got = exc.code
        assert json.dumps(got, default=str) == json.dumps(expected, default=str), path.name


async def test_async_parse_honours_the_deadline() -> None:
    with pytest.raises(ResultLogError) as caught:
        await parse_result_log_async(big_log(), TINY)
    assert caught.value.code is ErrorCode.TIMEOUT


async def test_async_errors_keep_their_code() -> None:
    with pytest.raises(ResultLogError) as caught:
        await parse_result_log_async("  \n")
    assert caught.value.code is ErrorCode.EMPTY_LOGS


async def test_async_parse_can_be_cancelled() -> None:
    task = asyncio.create_task(parse_result_log_async(big_log()))
    await asyncio.sleep(0)  # the task starts and pauses after its first step
    assert not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_async_parse_lets_other_tasks_run() -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    other = asyncio.create_task(ticker())
    record = await parse_result_log_async(big_log())
    other.cancel()
    assert record.subtype == "success"
    assert ticks > 5
