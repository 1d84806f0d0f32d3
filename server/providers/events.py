"""Typed stream events: each provider validates every event of its wire format against
TypedDicts with pydantic (`event_adapter`), so a malformed event (`"content": 5`,
`"choices": "x"`, nesting deeper than the parser allows) becomes a ProviderError naming the
field, never a crash in the server.

A line that is not JSON at all is skipped with a warning (servers interleave comments and
keep-alives); JSON of the wrong shape is an error: the server does not speak the format.

TypedDicts, not models: pydantic-core checks them while it parses and hands back plain dicts,
a few µs less per event than building model objects (a reply streams hundreds of events).
Unknown fields are dropped; a field absent from the event is absent from the dict.
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

import pydantic

log = logging.getLogger(__name__)
Event = TypeVar("Event")


def event_adapter(event_type: type[Event]) -> pydantic.TypeAdapter[Event]:
    """The validator of one wire event type (a TypedDict, `total=False`)."""
    return pydantic.TypeAdapter(event_type)


def parse_event(adapter: pydantic.TypeAdapter[Event], payload: str, provider: str) -> Event | None:
    """The event in `payload`; None for a line that is not JSON (logged, skipped).
    Raises pydantic.ValidationError for JSON that is not a valid event."""
    try:
        return adapter.validate_json(payload)
    except pydantic.ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        if first["type"] == "json_invalid" and "recursion limit" not in first["msg"]:
            log.warning("%s: skipped a non-JSON stream line (%d chars)", provider, len(payload))
            return None
        raise


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def malformed_event(exc: pydantic.ValidationError) -> str:
    """What is wrong with an event, naming the field: `choices.0.delta.content: expected a
    string, got 5`."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"]) or "the event"
    if first["type"] == "json_invalid":
        return "malformed stream event: JSON nested too deeply"
    message = str(first["msg"]).removeprefix("Input should be ")
    for wrong, right in (("a valid array", "an array"), ("a valid integer", "an integer")):
        message = message.replace(wrong, right)
    message = message.replace("valid ", "")
    more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
    got = _shown(first["input"])
    return f"malformed stream event: {where}: expected {message}, got {got}{more}"
