"""File bodies kept out of JSON: ``{"fence": N}`` references to fenced code blocks.

In an action document, a file's ``content`` and an edit's ``search`` / ``replace`` may be
``{"fence": N}`` instead of a JSON string: the body is then the exact text of the N-th fenced
code block of the same reply (numbered 1, 2, 3… in reply order; the fence holding the action
document itself, other documents and reasoning blocks are not counted). See docs/edits.md.

Only those three places take a reference; anywhere else ``{"fence": N}`` stays a plain value
(and fails validation as such). Errors name the field and the fences the reply does have.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from actions.errors import ActionError, InvalidAction
from parsing.code_fences import CodeFence

REF_KEY = "fence"
FILE_SLOTS = ("first_file", "next_file")


class TruncatedBody(ActionError):
    """A referenced fence has no closing line: the reply was cut off inside it."""

    kind = "truncated_body"

    def __init__(self, field: str, fence: CodeFence) -> None:
        self.field = field
        self.fence = fence
        super().__init__(
            f"{field}: fence {fence.number} was cut off before its closing line, "
            "so nothing of this document was applied"
        )


def has_references(document: Mapping[str, Any]) -> bool:
    """Does the document use any ``{"fence": N}`` body?"""
    return any(True for _ in _body_slots(document))


def resolve_references(document: Mapping[str, Any], fences: Sequence[CodeFence]) -> dict[str, Any]:
    """A copy of ``document`` with every ``{"fence": N}`` body replaced by the fence's text.

    InvalidAction: a reference that is malformed or names a fence the reply does not have;
    TruncatedBody: the referenced fence was cut off.
    """
    resolved = copy.deepcopy(dict(document))
    problems: list[str] = []
    for field, holder, key in list(_body_slots(resolved)):
        try:
            holder[key] = _body(field, holder[key], fences)
        except InvalidAction as error:
            problems += error.errors
    if problems:
        raise InvalidAction(problems)
    return resolved


def _body_slots(document: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any], str]]:
    """(field path, container, key) of every body that is a reference object."""
    for slot in FILE_SLOTS:
        op = document.get(slot)
        file = op.get("file") if isinstance(op, Mapping) else None
        if not isinstance(file, dict):
            continue
        if _is_reference(file.get("content")):
            yield f"{slot}.file.content", file, "content"
        edits = file.get("edits")
        if not isinstance(edits, list):
            continue
        for index, edit in enumerate(edits):
            if not isinstance(edit, dict):
                continue
            for key in ("search", "replace"):
                if _is_reference(edit.get(key)):
                    yield f"{slot}.file.edits[{index}].{key}", edit, key


def _is_reference(value: Any) -> bool:
    return isinstance(value, Mapping) and REF_KEY in value


def _body(field: str, reference: Mapping[str, Any], fences: Sequence[CodeFence]) -> str:
    number = _number(reference.get(REF_KEY))
    if number is None or set(reference) != {REF_KEY}:
        raise InvalidAction(
            [
                f"{field}: expected a string or a fence reference like "
                f'{{"fence": 1}} (only the key "fence", with the number of a fenced code '
                f"block of this reply); got {_short(reference)}"
            ]
        )
    if not 1 <= number <= len(fences):
        raise InvalidAction([f"{field}: {_missing(number, fences)}"])
    fence = fences[number - 1]
    if not fence.closed:
        raise TruncatedBody(field, fence)
    return fence.body


def _number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _missing(number: int, fences: Sequence[CodeFence]) -> str:
    if not fences:
        return (
            f"refers to fence {number}, but this reply has no fenced code block besides the "
            "action document; put the code in a ``` block on its own lines after the document"
        )
    listed = ", ".join(
        f"{f.number} (```{f.language})" if f.language else str(f.number) for f in fences
    )
    return (
        f"refers to fence {number}, but this reply has {len(fences)} fenced code block(s) "
        f"besides the action document: {listed}; fences are numbered 1, 2, 3... in the "
        "order they appear in the reply"
    )


def _short(value: Any) -> str:
    text = repr(dict(value)) if isinstance(value, Mapping) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
