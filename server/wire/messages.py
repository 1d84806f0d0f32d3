"""Checks on one JSON-RPC message before pygls sees it: every problem gets a named error.

`check_message(body)` decodes and validates the envelope; it returns a `Message` (plain JSON,
classified) or a `Refusal` (the error to answer, with the request id when one was readable).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

import cattrs

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002

MAX_DEPTH = 64
MsgId = int | str
Kind = Literal["request", "notification", "response"]

_ID_NEAR_START = re.compile(rb'"id"\s*:\s*(-?[0-9]{1,18}(?![0-9.eE])|"(?:[^"\\\r\n]|\\.){0,200}")')


@dataclass(frozen=True)
class Message:
    kind: Kind
    data: dict[str, Any]

    @property
    def id(self) -> MsgId:
        value: MsgId = self.data["id"]
        return value

    @property
    def method(self) -> str:
        value: str = self.data.get("method", "")
        return value


@dataclass(frozen=True)
class Refusal:
    """The error for a message that cannot be handled; `id` None: the id is unknown."""

    code: int
    message: str
    id: MsgId | None = None
    is_request: bool = True  # False: a notification or response (logged, not answered)


def check_message(body: bytes) -> Message | Refusal:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Refusal(
            PARSE_ERROR,
            f"the message is not valid UTF-8 (byte 0x{body[exc.start]:02x} at offset {exc.start})",
            guess_id(body),
        )
    try:
        data = json.loads(text)
    except RecursionError:
        return Refusal(PARSE_ERROR, "the message is nested too deeply to parse", guess_id(body))
    except json.JSONDecodeError as exc:
        return Refusal(
            PARSE_ERROR,
            f"the message is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
            guess_id(body),
        )
    return check_envelope(data)


def check_envelope(data: Any) -> Message | Refusal:
    if isinstance(data, list):
        return Refusal(INVALID_REQUEST, "batch messages (JSON arrays) are not supported")
    if not isinstance(data, dict):
        return Refusal(INVALID_REQUEST, f"a message must be a JSON object, not {json_type(data)}")
    has_id = "id" in data
    msg_id = data.get("id")
    if has_id and not valid_id(msg_id):
        return Refusal(
            INVALID_REQUEST,
            f'"id" must be an integer or a string, not {json_type(msg_id)}',
            is_request="method" in data,
        )
    answer_id = msg_id if has_id else None
    is_request = has_id and "method" in data
    if data.get("jsonrpc") != "2.0":
        got = json.dumps(data["jsonrpc"])[:40] if "jsonrpc" in data else "missing"
        return Refusal(
            INVALID_REQUEST, f'"jsonrpc" must be "2.0" (got {got})', answer_id, is_request
        )
    if "method" in data:
        return check_call(data, answer_id)
    if not has_id or ("result" not in data and "error" not in data):
        return Refusal(
            INVALID_REQUEST,
            'a message needs a "method" (request or notification) or an "id" with a "result" '
            'or an "error" (response)',
            answer_id,
            is_request=False,
        )
    return Message("response", data)


def check_call(data: dict[str, Any], msg_id: MsgId | None) -> Message | Refusal:
    is_request = msg_id is not None
    method = data["method"]
    if not isinstance(method, str) or not method:
        shown = json.dumps(method)[:40]
        return Refusal(
            INVALID_REQUEST,
            f'"method" must be a non-empty string (got {shown})',
            msg_id,
            is_request,
        )
    params = data.get("params")
    if "params" in data and not isinstance(params, dict | list) and params is not None:
        return Refusal(
            INVALID_PARAMS,
            f"{method}: params must be an object or an array, not {json_type(params)}",
            msg_id,
            is_request,
        )
    problem = deep_problem(params)
    if problem is not None:
        return Refusal(INVALID_PARAMS, f"{method}: {problem}", msg_id, is_request)
    return Message("request" if is_request else "notification", data)


def deep_problem(value: Any) -> str | None:
    """Nesting over MAX_DEPTH, or a string that is not Unicode text (lone surrogate)."""
    stack: list[tuple[Any, str, int]] = [(value, "params", 0)]
    while stack:
        item, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"params are nested deeper than {MAX_DEPTH} levels (at {path[:80]}…)"
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                return (
                    f"{path} holds a lone UTF-16 surrogate (\\u{ord(item[exc.start]):04x} at "
                    f"character {exc.start}), which is not text"
                )
        elif isinstance(item, dict):
            for key, child in item.items():
                stack.append((child, f"{path}.{key}", depth + 1))
                if not isinstance(key, str) or _is_surrogate_key(key):
                    return f"{path} has a key with a lone UTF-16 surrogate"
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{i}]", depth + 1) for i, child in enumerate(item))
    return None


def _is_surrogate_key(key: str) -> bool:
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def valid_id(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def guess_id(body: bytes) -> MsgId | None:
    """The request id of an undecodable message, when one is plainly written in it."""
    match = _ID_NEAR_START.search(body[:4096])
    if match is None:
        return None
    raw = match.group(1)
    if raw.startswith(b'"'):
        try:
            value = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return None
        return value if isinstance(value, str) else None
    return int(raw)


_PATH = re.compile(r"@ \$(\S*)")


def describe_error(exc: Exception) -> str:
    """What did not fit, with paths in the wire's camelCase (`$.params.textDocument.uri`)."""
    if not isinstance(exc, cattrs.BaseValidationError):
        return f"{type(exc).__name__}: {exc}"
    lines = cattrs.transform_error(exc)
    return "; ".join(_PATH.sub(lambda m: "@ $" + camel(m.group(1)), line) for line in lines)


def camel(path: str) -> str:
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), path)
