"""Post-processing of the pydantic-generated JSON Schema of action documents.

The raw pydantic schema uses ``$defs``/``$ref``, titles, docstring descriptions and an OpenAPI
``discriminator`` keyword. Prompts and constrained decoders want a self-contained schema:
references are inlined, annotations dropped, every object closed (``additionalProperties:
false``) and, when ``bounded``, every string and array gets a maximum (small local models
loop until ``max_tokens`` without them: seen with SmolLM2-135M under llama.cpp).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

JsonSchema = dict[str, Any]


class ToolManifestLike(Protocol):
    """What schema generation needs from a tool manifest."""

    @property
    def name(self) -> str: ...

    @property
    def parameters(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True)
class SchemaBounds:
    """Maximum lengths used when ``bounded=True``; strings by property name, else ``text``."""

    strings: Mapping[str, int] = field(
        default_factory=lambda: {
            "text_response": 4000,
            "content": 24000,
            "description": 400,
            "message": 200,
            "path": 256,
            "function_name": 64,
        }
    )
    text: int = 2000
    items: Mapping[str, int] = field(default_factory=lambda: {"files_to_modify": 32, "paths": 16})
    array: int = 32


_DROPPED_KEYS = frozenset({"title", "description", "discriminator", "default"})


def build_json_schema(
    raw: JsonSchema,
    *,
    bounded: bool,
    bounds: SchemaBounds,
    tools: Sequence[ToolManifestLike],
) -> JsonSchema:
    """A self-contained JSON Schema of the action union from pydantic's ``raw`` schema."""
    definitions = raw.get("$defs", {})
    body = {key: value for key, value in raw.items() if key != "$defs"}
    schema: JsonSchema = _clean(_inline(body, definitions))
    if tools:
        _specialise_tool_calls(schema, tools)
    if bounded:
        _bound(schema, bounds, owner="")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def _inline(node: Any, definitions: Mapping[str, Any]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(copy.deepcopy(definitions[ref.removeprefix("#/$defs/")]), definitions)
        return {key: _inline(value, definitions) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(item, definitions) for item in node]
    return node


def _clean(node: Any) -> Any:
    """Drop annotations and close objects; property *names* are never dropped."""
    if isinstance(node, list):
        return [_clean(item) for item in node]
    if not isinstance(node, dict):
        return node
    cleaned: JsonSchema = {}
    for key, value in node.items():
        if key in _DROPPED_KEYS:
            continue
        if key == "properties":
            cleaned[key] = {name: _clean(sub) for name, sub in value.items()}
        else:
            cleaned[key] = _clean(value)
    if cleaned.get("type") == "object" and "properties" in cleaned:
        cleaned.setdefault("additionalProperties", False)
    return cleaned


def _specialise_tool_calls(schema: JsonSchema, tools: Sequence[ToolManifestLike]) -> None:
    """Replace the generic ``tool_call`` body by one branch per tool with its own arguments."""
    for branch in schema.get("oneOf", []):
        properties = branch.get("properties", {})
        if "tool_call" not in properties:
            continue
        properties["tool_call"] = {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        "function_name": {"const": tool.name},
                        "args": _clean(copy.deepcopy(dict(tool.parameters))),
                    },
                    "required": ["function_name", "args"],
                    "additionalProperties": False,
                }
                for tool in tools
            ]
        }


def _bound(node: Any, bounds: SchemaBounds, owner: str) -> None:
    """Add ``maxLength`` / ``maxItems`` to every unbounded string and array, by property name."""
    if isinstance(node, list):
        for item in node:
            _bound(item, bounds, owner)
        return
    if not isinstance(node, dict):
        return
    if node.get("type") == "string" and "const" not in node and "enum" not in node:
        node.setdefault("maxLength", bounds.strings.get(owner, bounds.text))
    if node.get("type") == "array":
        node.setdefault("maxItems", bounds.items.get(owner, bounds.array))
    for key, value in node.items():
        if key == "properties":
            for name, sub in value.items():
                _bound(sub, bounds, owner=name)
        elif key == "items":
            _bound(value, bounds, owner="path" if owner in ("paths", "files_to_modify") else owner)
        elif isinstance(value, dict | list):
            _bound(value, bounds, owner)
