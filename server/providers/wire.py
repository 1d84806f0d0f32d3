"""Typed stream events: each provider validates every event of its wire format with a
pydantic model, so a malformed event (`"content": 5`, `"choices": "x"`, nesting deeper than
the parser allows) becomes a ProviderError naming the field, never a crash in the server.

A line that is not JSON at all is skipped with a warning (servers interleave comments and
keep-alives); JSON of the wrong shape is an error: the server does not speak the format.
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

import pydantic

log = logging.getLogger(__name__)
Event = TypeVar("Event", bound=pydantic.BaseModel)


class WireModel(pydantic.BaseModel):
    """A wire object: unknown fields are ignored, known ones must have their type."""

    model_config = pydantic.ConfigDict(extra="ignore", frozen=True)


def parse_event(model: type[Event], payload: str, provider: str) -> Event | None:
    """The event in `payload`; None for a line that is not JSON (logged, skipped).
    Raises pydantic.ValidationError for JSON that is not a valid event."""
    try:
        return model.model_validate_json(payload)
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
