"""Result-log parser (SPEC §4): the streaming-JSON log of an external agent CLI -> a result.

Strategies, in priority order:

The log is first split into objects (`log_records`): an object may follow any prefix on its
line (``[HH:MM:SS]``, a date, a stream or runner name such as ``stdout:`` or ``runner:``, a
level word such as ``INFO:`` / ``ERROR:`` / ``[WARN]``, in any order) and may be
pretty-printed over several lines (numbered by the line it starts on).

1. plan mode: an object with at least two of the indicators ``"type":"assistant"``,
   ``"name":"ExitPlanMode"``, ``"tool_use"`` is a candidate; it must be an assistant message
   whose content has a ``tool_use`` named ``ExitPlanMode`` with a non-empty ``input.plan`` and
   a ``session_id``. All lines are scanned; the last valid candidate wins and gives the
   fixed plan_mode record (see ``ResultRecord.plan_mode``).
2. JSON result: among the objects starting in the last ``max_lines`` (1000) lines, those with
   ``"type": "result"``. Scanned from the end: the last valid one wins.

When both fail, the plan-mode error is reported if a candidate named ExitPlanMode (the user
evidently ran plan mode), else the JSON-result error. Validation: strict mode requires every
field of ``required_fields``, correctly typed, and skips results that fail; lenient mode
(default) turns those problems into ``warnings`` on the record.

Parsing is cooperative: work is split into steps so ``parse_result_log_async`` honours an
``asyncio.timeout`` and cancellation, and the sync ``parse_result_log`` checks the deadline.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Literal

import orjson

from parsing.log_records import LogRecord, log_records

PLAN_TOOL = "ExitPlanMode"
STEP_LINES = 256  # lines handled between two cancellation points
REQUIRED_FIELDS = ("type", "subtype", "is_error", "session_id")
TIMEOUT_ENV = "AGENT_LS_PARSER_TIMEOUT"
STRICT_ENV = "AGENT_LS_PARSER_STRICT"
REQUIRED_ENV = "AGENT_LS_PARSER_REQUIRED_FIELDS"

Strategy = Literal["plan_mode", "json_result"]


class ResultLogConfigError(ValueError):
    """A bad configuration value; the message names the variable and the expected form."""

    def __init__(self, variable: str, message: str) -> None:
        super().__init__(f"{variable}: {message}")
        self.variable = variable


_DURATION = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m|h)?$", re.IGNORECASE)
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_BOOLS = {"true": True, "1": True, "yes": True, "on": True}
_BOOLS |= {"false": False, "0": False, "no": False, "off": False}


def parse_duration(text: str) -> float:
    """Seconds from "30s", "500ms", "2m", "1h" or plain seconds ("30", "1.5"); > 0."""
    match = _DURATION.match(text.strip())
    seconds = float(match[1]) * _UNIT_SECONDS[(match[2] or "s").lower()] if match else 0.0
    if seconds <= 0:
        raise ValueError(f"expected a positive duration like 30s, 500ms, 2m or 30, got {text!r}")
    return seconds


def parse_bool(text: str) -> bool:
    try:
        return _BOOLS[text.strip().lower()]
    except KeyError:
        raise ValueError(f"expected true/false/1/0, got {text!r}") from None


@dataclass(frozen=True)
class ResultLogConfig:
    """Parser settings. ``timeout`` in seconds; ``max_lines``: lines scanned for a result."""

    timeout: float = 30.0
    strict: bool = False
    required_fields: tuple[str, ...] = REQUIRED_FIELDS
    max_lines: int = 1000

    def __post_init__(self) -> None:
        if not self.timeout > 0:
            raise ResultLogConfigError("timeout", f"must be > 0, got {self.timeout!r}")
        if self.max_lines < 1:
            raise ResultLogConfigError("max_lines", f"must be >= 1, got {self.max_lines!r}")

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, base: ResultLogConfig | None = None
    ) -> ResultLogConfig:
        """``base`` (defaults) overridden by AGENT_LS_PARSER_TIMEOUT / _STRICT /
        _REQUIRED_FIELDS (comma-separated); ResultLogConfigError names a bad variable."""
        source = os.environ if env is None else env
        config = base or cls()
        parsers = {TIMEOUT_ENV: parse_duration, STRICT_ENV: parse_bool, REQUIRED_ENV: _fields}
        names = {TIMEOUT_ENV: "timeout", STRICT_ENV: "strict", REQUIRED_ENV: "required_fields"}
        values: dict[str, Any] = {}
        for variable, parse in parsers.items():
            raw = source.get(variable)
            if raw is None or not raw.strip():
                continue
            try:
                values[names[variable]] = parse(raw)
            except ValueError as exc:
                raise ResultLogConfigError(variable, str(exc)) from None
        return cls(**{**config.__dict__, **values})


def _fields(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise ValueError(f"expected comma-separated field names, got {text!r}")
    return names


class ErrorCode(StrEnum):
    EMPTY_LOGS = "empty_logs"
    TIMEOUT = "timeout"
    VALIDATION_FAILED = "validation_failed"
    PARSE_ERROR = "parse_error"
    NO_VALID_RESULT_FOUND = "no_valid_result_found"
    MISSING_PLAN_CONTENT = "missing_plan_content"
    INVALID_EXIT_PLAN_MODE = "invalid_exit_plan_mode"


class ResultLogError(Exception):
    """Parsing failed; ``code`` says why (an ``ErrorCode``), ``message`` says where."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ResultRecord:
    """The parsed result. ``to_json()`` is the exact output record."""

    data: Mapping[str, Any]
    strategy: Strategy
    line: int  # 1-based line of the log it came from
    warnings: tuple[str, ...] = field(default=())

    @property
    def subtype(self) -> str | None:
        value = self.data.get("subtype")
        return value if isinstance(value, str) else None

    @property
    def is_error(self) -> bool | None:
        value = self.data.get("is_error")
        return value if isinstance(value, bool) else None

    @property
    def session_id(self) -> str | None:
        value = self.data.get("session_id")
        return value if isinstance(value, str) else None

    @property
    def result(self) -> str | None:
        value = self.data.get("result")
        return value if isinstance(value, str) else None

    def to_json(self) -> dict[str, Any]:
        return dict(orjson.loads(orjson.dumps(dict(self.data))))

    @classmethod
    def plan_mode(cls, session_id: str, plan: str, usage: Any, line: int) -> ResultRecord:
        data = {
            "type": "result",
            "subtype": "plan_mode",
            "is_error": False,
            "session_id": session_id,
            "result": plan,
            "duration_ms": 0,
            "duration_api_ms": 0,
            "num_turns": 0,
            "total_cost_usd": 0.0,
            "usage": usage if isinstance(usage, dict) else {},
        }
        return cls(data=MappingProxyType(data), strategy="plan_mode", line=line)


_INDICATORS = (
    re.compile(r'"type"\s*:\s*"assistant"'),
    re.compile(r'"name"\s*:\s*"ExitPlanMode"'),
    re.compile(r'"tool_use"'),
)
_RESULT_HINT = re.compile(r'"type"\s*:\s*"result"')


def _load_object(body: str) -> dict[str, Any] | None:
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def indicator_count(line: str) -> int:
    return sum(1 for pattern in _INDICATORS if pattern.search(line))


def _plan_from(obj: dict[str, Any], number: int) -> ResultRecord:
    """The plan_mode record of one candidate object, or ResultLogError saying why not."""

    def fail(code: ErrorCode, why: str) -> ResultLogError:
        return ResultLogError(code, f"line {number}: {why}")

    message = obj.get("message")
    if obj.get("type") != "assistant" or not isinstance(message, dict):
        raise fail(ErrorCode.INVALID_EXIT_PLAN_MODE, "not an assistant message")
    content = message.get("content")
    uses = [
        item
        for item in (content if isinstance(content, list) else [])
        if isinstance(item, dict) and item.get("type") == "tool_use"
        if item.get("name") == PLAN_TOOL
    ]
    if not uses:
        raise fail(ErrorCode.INVALID_EXIT_PLAN_MODE, f"no tool_use named {PLAN_TOOL}")
    tool_input = uses[-1].get("input")
    plan = tool_input.get("plan") if isinstance(tool_input, dict) else None
    if not isinstance(tool_input, dict) or not isinstance(plan, str | None):
        raise fail(ErrorCode.INVALID_EXIT_PLAN_MODE, f"{PLAN_TOOL} input.plan is not a string")
    if not plan or not plan.strip():
        raise fail(ErrorCode.MISSING_PLAN_CONTENT, f"{PLAN_TOOL} has no plan")
    session_id = obj.get("session_id")
    if not isinstance(session_id, str) or not session_id:
        raise fail(ErrorCode.VALIDATION_FAILED, "plan mode result has no session_id")
    return ResultRecord.plan_mode(session_id, plan, message.get("usage"), number)


PlanOutcome = Generator[None, None, "ResultRecord | ResultLogError | None"]


def _plan_mode(records: Sequence[LogRecord]) -> PlanOutcome:
    """Strategy 1: the last valid plan; else the last error of an object naming ExitPlanMode
    (None when none did: plan mode was not in use)."""
    found: ResultRecord | None = None
    error: ResultLogError | None = None
    for start in range(0, len(records), STEP_LINES):
        yield
        for record in records[start : start + STEP_LINES]:
            source = record.source
            if '"tool_use"' not in source and PLAN_TOOL not in source:
                continue  # two indicators need at least one of these
            if indicator_count(source) < 2:
                continue
            number = record.line
            obj = _load_object(record.body)
            try:
                if obj is None:
                    raise ResultLogError(ErrorCode.PARSE_ERROR, f"line {number}: not JSON")
                found = _plan_from(obj, number)
            except ResultLogError as exc:
                if _INDICATORS[1].search(source):
                    error = exc
    return found or error


_TYPES: dict[str, tuple[type, str]] = {
    "subtype": (str, "a string"),
    "is_error": (bool, "a boolean"),
    "session_id": (str, "a string"),
}


def validation_problems(obj: Mapping[str, Any], required: Sequence[str]) -> list[str]:
    """What is missing or wrongly typed in a result object (empty: valid)."""
    problems = []
    for name in required:
        if name not in obj or obj[name] is None:
            problems.append(f"missing required field {name!r}")
        elif name == "type" and obj[name] != "result":
            problems.append(f"field 'type' must be 'result', got {obj[name]!r}")
        elif name in _TYPES and not isinstance(obj[name], _TYPES[name][0]):
            problems.append(f"field {name!r} must be {_TYPES[name][1]}, got {obj[name]!r}")
    return problems


def _json_result(
    records: Sequence[LogRecord], scanned: int, config: ResultLogConfig
) -> Generator[None, None, ResultRecord | ResultLogError]:
    """Strategy 2 over ``records`` (those of the last ``scanned`` lines), from the end: the
    last valid result, else the error of the latest rejected candidate."""
    notes: list[str] = []
    error: ResultLogError | None = None
    for end in range(len(records), 0, -STEP_LINES):
        yield
        for index in range(end - 1, max(end - STEP_LINES, 0) - 1, -1):
            record = records[index]
            number = record.line
            if not _RESULT_HINT.search(record.body):
                continue
            obj = _load_object(record.body)
            if obj is None:
                notes.append(f"line {number}: result line is not valid JSON; skipped")
                error = error or ResultLogError(ErrorCode.PARSE_ERROR, notes[-1])
                continue
            if obj.get("type") != "result":
                continue  # e.g. an assistant message quoting a result object
            problems = validation_problems(obj, config.required_fields)
            if problems and config.strict:
                why = f"line {number}: " + "; ".join(problems)
                notes.append(f"{why}; skipped")
                error = error or ResultLogError(ErrorCode.VALIDATION_FAILED, why)
                continue
            warnings = tuple(notes + [f"line {number}: {p}" for p in problems])
            data = MappingProxyType(obj)
            return ResultRecord(data=data, strategy="json_result", line=number, warnings=warnings)
    detail = f"no result object in the last {scanned} lines"
    return error or ResultLogError(ErrorCode.NO_VALID_RESULT_FOUND, detail)


def _parse_steps(text: str, config: ResultLogConfig) -> Generator[None, None, ResultRecord]:
    if not text.strip():
        raise ResultLogError(ErrorCode.EMPTY_LOGS, "the log is empty")
    lines = text.splitlines()
    records = yield from log_records(lines, 1, STEP_LINES)
    plan = yield from _plan_mode(records)
    if isinstance(plan, ResultRecord):
        return plan
    first = max(len(lines) - config.max_lines, 0)
    recent = [record for record in records if record.line > first]
    found = yield from _json_result(recent, len(lines) - first, config)
    if isinstance(found, ResultRecord):
        return found
    raise plan or found


def parse_result_log(text: str, config: ResultLogConfig | None = None) -> ResultRecord:
    """Parse a log into its result record; ResultLogError (with ``.code``) on failure."""
    cfg = config or ResultLogConfig()
    deadline = time.monotonic() + cfg.timeout
    steps = _parse_steps(text, cfg)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            record: ResultRecord = done.value
            return record
        if time.monotonic() > deadline:
            steps.close()
            raise ResultLogError(ErrorCode.TIMEOUT, f"parsing took longer than {cfg.timeout:g}s")


async def parse_result_log_async(text: str, config: ResultLogConfig | None = None) -> ResultRecord:
    """As ``parse_result_log``, yielding to the event loop between steps: the work stops at
    ``config.timeout`` (ResultLogError code "timeout") or when the task is cancelled."""
    cfg = config or ResultLogConfig()
    steps = _parse_steps(text, cfg)
    try:
        async with asyncio.timeout(cfg.timeout):
            while True:
                try:
                    next(steps)
                except StopIteration as done:
                    record: ResultRecord = done.value
                    return record
                await asyncio.sleep(0)
    except TimeoutError as exc:
        raise ResultLogError(
            ErrorCode.TIMEOUT, f"parsing took longer than {cfg.timeout:g}s"
        ) from exc
    finally:
        steps.close()
