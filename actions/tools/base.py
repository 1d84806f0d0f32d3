"""Tool definition (pure data) separate from tool execution (behaviour), SPEC §5."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from actions.errors import ActionError


@dataclass(frozen=True, init=False)
class Tool:
    """A tool manifest: name, description and the JSON Schema of its arguments.

    Immutable: the schema is kept as canonical JSON text and ``parameters`` returns a fresh
    copy, so no caller can change a manifest another one is using.
    """

    name: str
    description: str
    _parameters_json: str

    def __init__(self, name: str, description: str, parameters: Mapping[str, Any]) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "_parameters_json", json.dumps(parameters, sort_keys=True))

    @property
    def parameters(self) -> dict[str, Any]:
        """The JSON Schema of the arguments (a fresh copy)."""
        schema: dict[str, Any] = json.loads(self._parameters_json)
        return schema

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "description", "parameters"}`` as JSON-ready data."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one tool call.

    ``text`` is what the model reads; ``data`` is the structured form for the editor/UI;
    ``error_kind`` is the ``ActionError.kind`` of a failure (``None`` when ``ok``).
    """

    ok: bool
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)
    error_kind: str | None = None

    @classmethod
    def success(cls, text: str, data: Mapping[str, Any] | None = None) -> ToolResult:
        return cls(ok=True, text=text, data=dict(data or {}))

    @classmethod
    def failure(cls, error: ActionError, data: Mapping[str, Any] | None = None) -> ToolResult:
        return cls(ok=False, text=error.message, data=dict(data or {}), error_kind=error.kind)


class ToolImplementation(Protocol):
    """The behaviour behind a manifest. ``execute`` gets arguments already schema-checked."""

    @property
    def name(self) -> str: ...

    async def execute(self, args: Mapping[str, Any]) -> ToolResult: ...
