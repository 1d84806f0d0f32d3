"""Block types a model reply is split into (SPEC §3).

A reply becomes an ordered list of blocks whose source spans tile it exactly:
``"".join(b.text for b in blocks) == reply`` and each block's ``text`` is
``reply[b.start:b.end]`` (offsets are code points, i.e. Python ``str`` indices).

- `TextBlock`: prose, reasoning, code in other languages, JSON that is not a document.
- `ActionBlock`: an action document (top-level object whose ``action`` is one of
  `ACTION_KINDS`), validated later by ``actions/``.
- `ToolCallBlock`: a tool call in the Hermes/Qwen shape ``{"name", "arguments"}`` or
  ``{"function_name", "args"}`` (inside ``<tool_call>`` or bare/fenced).

Flags on the two document blocks: ``repaired`` (the JSON was not strictly valid and was
decoded by a repair pass), ``truncated`` (the JSON was cut off: never apply it as if
complete), ``suspect`` (the repair may have lost characters: never apply file contents).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Literal

ACTION_KINDS: Final[frozenset[str]] = frozenset(
    {"text_response", "tool_call", "start_multi_file", "continue_multi_file"}
)

Origin = Literal["bare_json", "fenced_json", "tool_call"]
"""Where a JSON snippet was found: bare in prose, in a ``` fence, or in a <tool_call> tag."""


@dataclass(frozen=True, slots=True)
class TextBlock:
    """Text shown to the user as is (never executed)."""

    kind: ClassVar[Literal["text"]] = "text"
    start: int
    end: int
    text: str

    def __init__(self, start: int, end: int, text: str) -> None:
        # the stream makes one per delta: the slots are set directly (a frozen dataclass's
        # own __init__ goes through object.__setattr__: twice the time)
        _SET_START(self, start)
        _SET_END(self, end)
        _SET_TEXT(self, text)


_SET_START = TextBlock.__dict__["start"].__set__
_SET_END = TextBlock.__dict__["end"].__set__
_SET_TEXT = TextBlock.__dict__["text"].__set__


@dataclass(frozen=True, slots=True)
class ActionBlock:
    """An action document (SPEC §2); ``document`` is the decoded top-level object."""

    kind: ClassVar[Literal["action"]] = "action"
    start: int
    end: int
    text: str
    document: dict[str, Any] = field(hash=False)
    repaired: bool = False
    truncated: bool = False
    suspect: bool = False
    origin: Origin = "bare_json"

    @property
    def action(self) -> str:
        """The document's ``action`` field (one of `ACTION_KINDS`)."""
        return str(self.document["action"])


@dataclass(frozen=True, slots=True)
class ToolCallBlock:
    """A tool call: ``name`` and its ``args`` object."""

    kind: ClassVar[Literal["tool_call"]] = "tool_call"
    start: int
    end: int
    text: str
    name: str
    args: dict[str, Any] = field(hash=False)
    repaired: bool = False
    truncated: bool = False
    suspect: bool = False
    origin: Origin = "bare_json"


Block = TextBlock | ActionBlock | ToolCallBlock


def merge_text(blocks: list[Block]) -> list[Block]:
    """Adjacent text blocks joined into one, each run in one pass (the streaming parser
    releases text delta by delta, so a streamed reply holds about one text block per delta;
    joining pairwise would copy the text so far again for every block)."""
    merged: list[Block] = []
    run: list[TextBlock] = []
    for block in [*blocks, None]:
        if isinstance(block, TextBlock):
            run.append(block)
            continue
        if len(run) == 1:
            merged.append(run[0])
        elif run:
            merged.append(TextBlock(run[0].start, run[-1].end, "".join(b.text for b in run)))
        run = []
        if block is not None:
            merged.append(block)
    return merged
