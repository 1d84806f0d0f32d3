"""Check tool arguments against a manifest's JSON Schema, reporting the first bad field.

A deliberately small subset of JSON Schema — what tool manifests use: ``type`` (one or a
list), ``properties``, ``required``, ``additionalProperties`` (bool or schema), ``items``,
``enum``, ``const``, ``minLength``/``maxLength``, ``minItems``/``maxItems``,
``minimum``/``maximum``, ``minProperties``/``maxProperties``, ``anyOf``, ``oneOf``.
Unknown keywords are ignored. Errors name the field path (``args.paths[1]``) and what was
expected, as ``InvalidToolCall`` carries them back to the model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from actions.errors import InvalidToolCall
from actions.schema_errors import describe_value

Schema = Mapping[str, Any]

_TYPE_CHECKS: Mapping[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, Mapping),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}
_TYPE_WORDS: Mapping[str, str] = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


class _Mismatch(Exception):
    def __init__(self, path: str, problem: str) -> None:
        super().__init__(path, problem)
        self.path = path
        self.problem = problem


def check_args(tool: str, schema: Schema, args: Any) -> None:
    """Raise ``InvalidToolCall(tool, field, problem)`` when ``args`` violates ``schema``."""
    try:
        _check(schema, args, "args")
    except _Mismatch as mismatch:
        raise InvalidToolCall(tool, mismatch.path, mismatch.problem) from None


def _check(schema: Schema, value: Any, path: str) -> None:
    _check_type(schema, value, path)
    if "const" in schema and value != schema["const"]:
        raise _Mismatch(path, f"expected {schema['const']!r}; got {describe_value(value)}")
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(str(item) for item in schema["enum"])
        raise _Mismatch(path, f"expected one of {allowed}; got {describe_value(value)}")
    if isinstance(value, str):
        _check_sized(schema, len(value), path, "minLength", "maxLength", "character")
    elif isinstance(value, list):
        _check_sized(schema, len(value), path, "minItems", "maxItems", "item")
        item_schema = schema.get("items")
        if isinstance(item_schema, Mapping):
            for index, item in enumerate(value):
                _check(item_schema, item, f"{path}[{index}]")
    elif isinstance(value, Mapping):
        _check_object(schema, value, path)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        _check_range(schema, value, path)
    _check_alternatives(schema, value, path)


def _check_type(schema: Schema, value: Any, path: str) -> None:
    expected = schema.get("type")
    if expected is None:
        return
    names = [expected] if isinstance(expected, str) else list(expected)
    if any(_TYPE_CHECKS.get(name, lambda _v: True)(value) for name in names):
        return
    words = " or ".join(_TYPE_WORDS.get(name, name) for name in names)
    raise _Mismatch(path, f"expected {words}; got {describe_value(value)}")


def _check_sized(
    schema: Schema, size: int, path: str, low_key: str, high_key: str, unit: str
) -> None:
    low, high = schema.get(low_key), schema.get(high_key)
    if isinstance(low, int) and size < low:
        if low == 1:
            raise _Mismatch(path, "must not be empty")
        raise _Mismatch(path, f"expected at least {low} {unit}s; got {size}")
    if isinstance(high, int) and size > high:
        raise _Mismatch(path, f"expected at most {high} {unit}s; got {size}")


def _check_range(schema: Schema, value: float, path: str) -> None:
    low, high = schema.get("minimum"), schema.get("maximum")
    if isinstance(low, int | float) and value < low:
        raise _Mismatch(path, f"expected a value >= {low}; got {value}")
    if isinstance(high, int | float) and value > high:
        raise _Mismatch(path, f"expected a value <= {high}; got {value}")


def _check_object(schema: Schema, value: Mapping[str, Any], path: str) -> None:
    properties: Mapping[str, Schema] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            raise _Mismatch(f"{path}.{name}", "missing required field")
    extra = schema.get("additionalProperties", True)
    for name, item in value.items():
        if name in properties:
            _check(properties[name], item, f"{path}.{name}")
        elif extra is False:
            allowed = ", ".join(properties) or "none"
            raise _Mismatch(f"{path}.{name}", f"unexpected field; allowed fields: {allowed}")
        elif isinstance(extra, Mapping):
            _check(extra, item, f"{path}.{name}")
    _check_sized(schema, len(value), path, "minProperties", "maxProperties", "field")


def _check_alternatives(schema: Schema, value: Any, path: str) -> None:
    any_of = schema.get("anyOf")
    if any_of and not any(_matches(branch, value) for branch in any_of):
        raise _Mismatch(path, _alternatives_problem(any_of, value, exactly=False))
    one_of = schema.get("oneOf")
    if one_of and sum(_matches(branch, value) for branch in one_of) != 1:
        raise _Mismatch(path, _alternatives_problem(one_of, value, exactly=True))


def _matches(schema: Schema, value: Any) -> bool:
    try:
        _check(schema, value, "")
    except _Mismatch:
        return False
    return True


def _alternatives_problem(branches: list[Schema], value: Any, *, exactly: bool) -> str:
    """Name the fields when every branch is a bare ``required`` list (``path`` | ``paths``)."""
    keys = [branch.get("required") for branch in branches]
    if all(
        isinstance(k, list) and len(k) == 1 and len(b) == 1
        for k, b in zip(keys, branches, strict=True)
    ):
        names = [k[0] for k in keys if isinstance(k, list)]
        listed = ", ".join(repr(name) for name in names)
        present = [name for name in names if isinstance(value, Mapping) and name in value]
        got = " and ".join(repr(name) for name in present) if present else "none of them"
        which = "exactly one" if exactly else "at least one"
        return f"expected {which} of {listed}; got {got}"
    return f"does not match {'exactly one' if exactly else 'any'} of the allowed forms"
