"""What a snippet parser reports at a candidate position: the snippet layer's vocabulary.

A parser tried at index ``i`` of a reply answers with one of:

- `Found`: one or more `Snippet` values whose spans tile ``[i, end)`` (a fence may hold
  several JSON values);
- `Opaque`: a region of text that is never searched for snippets (``<think>`` blocks, code
  fences in other languages, fences or tags whose body is not decodable JSON); it ends at
  the first ``close`` marker at or after ``search_from`` (or at the end of the reply);
- `NoMatch`: nothing here; ``skip`` lists later candidate positions known to fail too;
- `PENDING`: the answer depends on text not received yet (streaming only).

These value objects (and `json.tolerant.Decoded`, `snippets.TextSpan`) are plain slots
dataclasses, never mutated once built: one or more is built per candidate on the hot path,
and a frozen dataclass's ``__init__`` (one ``object.__setattr__`` per field) costs about
five times as much.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from parsing.blocks import Origin


@dataclass(slots=True)
class Snippet:
    """One JSON value found in a reply.

    ``start``/``end``: the span it owns in the reply (including its fence or tags);
    ``value_start``/``value_end``: the JSON text itself. ``complete`` is False when the JSON
    was cut off (closed by the repair pass); ``repaired`` when it was not strictly valid;
    ``suspect`` when a repair may have lost characters of its strings.
    """

    start: int
    end: int
    value_start: int
    value_end: int
    origin: Origin
    value: Any = field(hash=False)
    complete: bool = True
    repaired: bool = False
    suspect: bool = False
    fixes: frozenset[str] = frozenset()

    @property
    def truncated(self) -> bool:
        """The JSON was cut off: never use it as if complete."""
        return not self.complete


@dataclass(slots=True)  # not frozen: see regions.py
class Found:
    snippets: tuple[Snippet, ...]
    end: int


@dataclass(slots=True)  # not frozen: see regions.py
class Opaque:
    search_from: int
    close: str | None
    """Literal closing marker; None: the region runs to the end of the reply."""
    fence: bool = False
    """The marker is a fence run: the region also swallows the run's further fence chars."""
    line: re.Pattern[str] | None = None
    """A code fence: the region ends only at a closing fence *line* matching this pattern
    (`fences.closing_line`), never at a run of fence characters inside a line."""


@dataclass(slots=True)  # not frozen: see regions.py
class NoMatch:
    skip: tuple[int, ...] = ()
    resume: int = -1
    """When >= 0: everything before it is text (a bracket region nested too deep)."""


class _Pending:
    def __repr__(self) -> str:
        return "PENDING"


PENDING: Final = _Pending()

Match = Found | Opaque | NoMatch | _Pending
