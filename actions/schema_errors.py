"""Turn pydantic validation errors into short, precise lines for the model.

Each line reads ``<field path>: expected <what>; got <value>``, where the field path is the
document's own (``plan.files_to_modify[0]``, ``first_file.action``): the discriminator tags
pydantic inserts into its locations are removed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

MAX_ERROR_LINES = 8

# Allowed values of each discriminated union, by the field that holds it.
UNION_TAGS: Mapping[str, tuple[str, ...]] = {
    "first_file": ("create_file", "update_file"),
    "next_file": ("create_file", "update_file", "delete_file"),
}


def describe_errors(exc: ValidationError, document: Any, cap: int = MAX_ERROR_LINES) -> list[str]:
    """One line per distinct error, capped at ``cap`` lines plus an "and N more" line."""
    lines: list[str] = []
    for error in exc.errors(include_url=False):
        line = describe_error(error, document)
        if line not in lines:
            lines.append(line)
    if len(lines) > cap:
        hidden = len(lines) - cap
        lines = [*lines[:cap], f"... and {hidden} more error{'s' if hidden > 1 else ''}"]
    return lines


def describe_error(error: ErrorDetails, document: Any) -> str:
    """A single ``path: expected ...; got ...`` line."""
    parts = document_path(error["loc"], document)
    path = format_path(parts)
    kind = error["type"]
    ctx = error.get("ctx") or {}
    got = describe_value(error.get("input"))
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        owner = str(parts[-1]) if parts else ""
        tags = UNION_TAGS.get(owner) or _split_tags(str(ctx.get("expected_tags", "")))
        allowed = ", ".join(tags)
        if kind == "union_tag_not_found":
            return f"{path}.action: missing; expected one of {allowed}"
        return f"{path}.action: expected one of {allowed}; got {ctx.get('tag')!r}"
    if kind == "missing":
        return f"{path}: missing required field"
    expected = _EXPECTED.get(kind)
    if expected is not None:
        return f"{path}: expected {expected}; got {got}"
    if kind == "string_too_short":
        return f"{path}: must not be empty"
    if kind == "too_short":
        if ctx.get("field_type") == "List":
            count = ctx.get("min_length", 1)
            return f"{path}: expected at least {count} item{'s' if count != 1 else ''}; got none"
        return f"{path}: must not be empty"
    if kind == "value_error":
        return f"{path}: {ctx.get('error', error['msg'])}"
    if kind == "literal_error":
        return f"{path}: expected one of {ctx.get('expected', '?')}; got {got}"
    return f"{path}: {error['msg']}; got {got}"


_EXPECTED: Mapping[str, str] = {
    "string_type": "a string",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "bool_type": "true or false",
    "int_type": "an integer",
}


def document_path(loc: Sequence[int | str], document: Any) -> list[int | str]:
    """Follow ``loc`` through the document, dropping the discriminator tags pydantic adds."""
    parts: list[int | str] = []
    node = document
    for position, item in enumerate(loc):
        if _is_body_tag(loc, position) or (
            position
            and loc[position - 1] == "file"
            and item in BODY_TAGS
            and not isinstance(node, Mapping)
        ):
            continue  # the tag of update_file's content / edits union
        if isinstance(node, Mapping):
            if item in node:
                parts.append(item)
                node = node[item]
                continue
            if item == node.get("action"):
                continue  # a tag inserted by the discriminated union
            parts.append(item)
            node = None
        elif isinstance(node, list) and isinstance(item, int) and 0 <= item < len(node):
            parts.append(item)
            node = node[item]
        else:
            parts.append(item)
            node = None
    return parts


BODY_TAGS = frozenset({"content", "edits"})


def _is_body_tag(loc: Sequence[int | str], position: int) -> bool:
    """``loc[position]`` is the union tag pydantic inserts after ``file`` of update_file."""
    return (
        position > 0
        and position + 1 < len(loc)
        and loc[position - 1] == "file"
        and loc[position] in BODY_TAGS
        and loc[position + 1] in BODY_TAGS
    )


def format_path(parts: Sequence[int | str]) -> str:
    """``["plan", "files_to_modify", 0]`` -> ``plan.files_to_modify[0]``."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "document"


def describe_value(value: Any, limit: int = 40) -> str:
    """A short description of a JSON value for an error line."""
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _split_tags(expected: str) -> tuple[str, ...]:
    return tuple(tag.strip().strip("'") for tag in expected.split(",") if tag.strip())
