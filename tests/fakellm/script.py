"""Scripts for the fake LLM: which reply each chat request gets.

A script is JSON (a file for the CLI, a dict in Python), in one of these shapes, which may
be combined:

    {"replies": [REPLY, ...]}
    {"rules": [{"match": "substring", "reply": REPLY}, ...], "default": REPLY}
    optional top level: "model": "name shown by /v1/models and /api/tags" (default "fake-model")

Choosing the reply for a chat request (decided here, documented for tests to rely on):
1. ``rules`` are checked first, in order, against the text of the last user message; the
   first rule whose ``match`` is a substring of it wins. A rule does not consume a reply.
2. otherwise ``replies`` are consumed one per request, in order; once exhausted the LAST
   reply repeats forever (so ``[{"fault": "500"}]`` means "500 forever").
3. otherwise ``default`` (only reachable when ``replies`` is empty).
4. otherwise the server answers HTTP 500 "fakellm: no scripted reply", so a test with a
   script that does not cover a request fails loudly.

REPLY is a string (the assistant content) or an object with the keys of ``Reply`` below.
Unknown keys and unknown faults are rejected with ``ValueError`` so typos fail loudly.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ERROR_FAULTS = frozenset({"500", "429", "503"})
FAULTS = ERROR_FAULTS | {"drop_mid_stream", "reset_mid_stream", "malformed_sse", "slow_first_byte"}
FINISH_REASONS = frozenset({"stop", "length"})
SLOW_FIRST_BYTE_DEFAULT_MS = 1000
_REPLY_KEYS = frozenset(
    {
        "content",
        "tool_calls",
        "chunk_size",
        "delay_ms",
        "first_byte_delay_ms",
        "finish_reason",
        "fault",
        "retry_after",
        "status",
        "events",
        "hold",
        "echo_headers",
    }
)


@dataclass(frozen=True)
class ToolCall:
    """A tool call the fake model makes: emitted in each protocol's native form."""

    name: str
    arguments: dict[str, Any]

    @property
    def arguments_json(self) -> str:
        return json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True)
class Reply:
    """One scripted answer.

    ``finish_reason`` None means automatic: "tool_calls"/"tool_use" when there are tool
    calls, else "stop". ``status`` (400-599) or an error fault ("500", "429", "503") makes the
    reply an HTTP error; ``retry_after`` then adds a Retry-After header. ``first_byte_delay_ms``
    is always honoured; the "slow_first_byte" fault without it waits 1000 ms.

    ``hold`` names a gate: the response waits (before any byte) until the test opens it
    with ``FakeLLM.release(name)`` (or the server stops) — a provider that stalls for as long
    as a test needs, without a timed wait.

    ``echo_headers`` (with an error ``status``) names request headers whose values the
    error message repeats, as servers that echo a rejected ``Authorization`` do: how tests
    check that what a client sends never comes back unmasked.

    ``events`` replaces the generated stream with exactly these events, each a raw payload
    string or a JSON value (sent as JSON), framed as the protocol frames one event (SSE
    ``data:`` line, NDJSON line): how tests send malformed events.
    """

    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    chunk_size: int = 4
    delay_ms: int = 0
    first_byte_delay_ms: int = 0
    finish_reason: str | None = None
    fault: str | None = None
    retry_after: float | None = None
    status: int | None = None
    events: tuple[str, ...] | None = None
    hold: str | None = None
    echo_headers: tuple[str, ...] = ()

    @property
    def error_status(self) -> int | None:
        """The HTTP error status this reply answers with, or None for a normal answer."""
        if self.status is not None:
            return self.status
        if self.fault in ERROR_FAULTS:
            return int(self.fault)
        return None

    @property
    def first_byte_delay(self) -> float:
        """Seconds to wait before sending any byte of the response."""
        ms = self.first_byte_delay_ms
        if ms == 0 and self.fault == "slow_first_byte":
            ms = SLOW_FIRST_BYTE_DEFAULT_MS
        return ms / 1000

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"


def _int_field(data: Mapping[str, Any], key: str, default: int, minimum: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"reply {key!r} must be an integer >= {minimum}, got {value!r}")
    return value


def _tool_call(data: Any) -> ToolCall:
    if not isinstance(data, Mapping) or not isinstance(data.get("name"), str):
        raise ValueError(f"tool call must be an object with a string 'name', got {data!r}")
    arguments = data.get("arguments", {})
    if not isinstance(arguments, Mapping):
        raise ValueError(f"tool call 'arguments' must be an object, got {arguments!r}")
    return ToolCall(name=data["name"], arguments=dict(arguments))


def _optional(data: Mapping[str, Any], key: str, kinds: tuple[type, ...]) -> Any:
    value = data.get(key)
    if value is not None and (not isinstance(value, kinds) or isinstance(value, bool)):
        raise ValueError(f"reply {key!r} has the wrong type: {value!r}")
    return value


def parse_reply(data: Any) -> Reply:
    """Build a Reply from its JSON form (a string or an object)."""
    if isinstance(data, str):
        return Reply(content=data)
    if not isinstance(data, Mapping):
        raise ValueError(f"a reply must be a string or an object, got {data!r}")
    unknown = set(data) - _REPLY_KEYS
    if unknown:
        raise ValueError(f"unknown reply keys: {sorted(unknown)}")
    content = data.get("content") or ""
    if not isinstance(content, str):
        raise ValueError(f"reply 'content' must be a string, got {content!r}")
    fault = _optional(data, "fault", (str,))
    if fault is not None and fault not in FAULTS:
        raise ValueError(f"unknown fault {fault!r}; expected one of {sorted(FAULTS)}")
    finish = _optional(data, "finish_reason", (str,))
    if finish is not None and finish not in FINISH_REASONS:
        raise ValueError(f"finish_reason must be one of {sorted(FINISH_REASONS)}")
    status = _optional(data, "status", (int,))
    if status is not None and not 400 <= status <= 599:
        raise ValueError(f"reply 'status' must be an HTTP error status 400-599, got {status}")
    retry_after = _optional(data, "retry_after", (int, float))
    hold = _optional(data, "hold", (str,))
    events = data.get("events")
    if events is not None and not isinstance(events, list):
        raise ValueError("reply 'events' must be a list")
    echo = data.get("echo_headers") or []
    if not isinstance(echo, list) or not all(isinstance(h, str) for h in echo):
        raise ValueError("reply 'echo_headers' must be a list of header names")
    tool_calls = data.get("tool_calls") or []
    if not isinstance(tool_calls, list):
        raise ValueError("reply 'tool_calls' must be a list")
    return Reply(
        content=content,
        tool_calls=tuple(_tool_call(t) for t in tool_calls),
        chunk_size=_int_field(data, "chunk_size", 4, 1),
        delay_ms=_int_field(data, "delay_ms", 0, 0),
        first_byte_delay_ms=_int_field(data, "first_byte_delay_ms", 0, 0),
        finish_reason=finish,
        fault=fault,
        retry_after=retry_after,
        status=status,
        events=None if events is None else tuple(_event_text(e) for e in events),
        hold=hold,
        echo_headers=tuple(h.lower() for h in echo),
    )


def _event_text(event: Any) -> str:
    return event if isinstance(event, str) else json.dumps(event, ensure_ascii=False)


@dataclass(frozen=True)
class Rule:
    match: str
    reply: Reply


@dataclass(frozen=True)
class Script:
    """A parsed script; see the module docstring for the selection order."""

    replies: tuple[Reply, ...] = ()
    rules: tuple[Rule, ...] = ()
    default: Reply | None = None
    model: str = "fake-model"

    @classmethod
    def from_json(cls, data: Any) -> Script:
        if isinstance(data, Script):
            return data
        if not isinstance(data, Mapping):
            raise ValueError(f"a script must be an object, got {type(data).__name__}")
        unknown = set(data) - {"replies", "rules", "default", "model"}
        if unknown:
            raise ValueError(f"unknown script keys: {sorted(unknown)}")
        replies = data.get("replies") or []
        rules = data.get("rules") or []
        if not isinstance(replies, list) or not isinstance(rules, list):
            raise ValueError("script 'replies' and 'rules' must be lists")
        model = data.get("model", "fake-model")
        if not isinstance(model, str):
            raise ValueError("script 'model' must be a string")
        default = data.get("default")
        return cls(
            replies=tuple(parse_reply(r) for r in replies),
            rules=tuple(_rule(r) for r in rules),
            default=None if default is None else parse_reply(default),
            model=model,
        )


def _rule(data: Any) -> Rule:
    if not isinstance(data, Mapping) or not isinstance(data.get("match"), str):
        raise ValueError(f"a rule must be an object with a string 'match', got {data!r}")
    if "reply" not in data:
        raise ValueError(f"rule {data['match']!r} has no 'reply'")
    return Rule(match=data["match"], reply=parse_reply(data["reply"]))


class ScriptPlayer:
    """Thread-safe cursor over a script: hands out the reply for each chat request."""

    def __init__(self, script: Script) -> None:
        self._lock = threading.Lock()
        self._script = script
        self._next = 0

    @property
    def script(self) -> Script:
        with self._lock:
            return self._script

    def replace(self, script: Script) -> None:
        with self._lock:
            self._script = script
            self._next = 0

    def rewind(self) -> None:
        with self._lock:
            self._next = 0

    def next_reply(self, user_text: str) -> Reply | None:
        with self._lock:
            script = self._script
            for rule in script.rules:
                if rule.match in user_text:
                    return rule.reply
            if script.replies:
                index = min(self._next, len(script.replies) - 1)
                self._next += 1
                return script.replies[index]
            return script.default
