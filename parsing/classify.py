"""Classification: snippets -> blocks, and `parse_reply` (SPEC §3, second layer).

Only documents count. A snippet becomes

- an `ActionBlock` when its value is an object whose ``action`` is one of `ACTION_KINDS`
  (whatever its other fields: validation happens in ``actions/``);
- a `ToolCallBlock` when it is an object of the tool-call shape: ``name`` (string) and
  ``arguments`` (object, or a string holding a JSON object, as OpenAI-style models send),
  or ``function_name`` and ``args``; an ``id`` / ``type`` key may ride along. Inside a
  ``<tool_call>`` tag, bare, or fenced alike (models that skip the wrapper);
- text otherwise: a package.json shown to the user, ``[1]`` in prose, a list of calls.

Adjacent text (prose and non-document snippets) is merged into one `TextBlock`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from parsing.blocks import ACTION_KINDS, ActionBlock, Block, TextBlock, ToolCallBlock
from parsing.json.repair_fallback import spend_from, stop_spending
from parsing.regions import Snippet
from parsing.snippets import Item, ScanState, TextSpan, scan_items

_CALL_SHAPES = (("name", "arguments"), ("function_name", "args"))
_CALL_EXTRAS = frozenset({"id", "type"})


def tool_call_of(value: Any) -> tuple[str, dict[str, Any]] | None:
    """``(name, args)`` if ``value`` has a tool-call shape, else None."""
    if not isinstance(value, dict):
        return None
    for name_key, args_key in _CALL_SHAPES:
        if name_key not in value or args_key not in value:
            continue
        if set(value) - {name_key, args_key} - _CALL_EXTRAS:
            return None
        name, args = value[name_key], value[args_key]
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                return None
        if isinstance(name, str) and name and isinstance(args, dict):
            return name, args
    return None


def is_action_document(value: Any) -> bool:
    """A top-level object whose ``action`` is one of the four kinds."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("action"), str)
        and (value["action"] in ACTION_KINDS)
    )


def classify(snippet: Snippet, text: str, base: int = 0) -> Block:
    """The block a snippet becomes (``text`` is the whole reply, or the part of it that
    starts at offset ``base``: the block's span is then shifted by ``base``)."""
    block = _document(snippet, text, base)
    if block is None:
        return TextBlock(
            snippet.start + base, snippet.end + base, text[snippet.start : snippet.end]
        )
    return block


def _document(s: Snippet, text: str, base: int) -> Block | None:
    """`classify` for a document; None for a snippet that is text."""
    value = s.value
    if not isinstance(value, dict):  # (neither kind of document: the commonest answer)
        return None
    if "action" not in value and "name" not in value and "function_name" not in value:
        return None  # (each kind needs one of these keys: `is_action_document`, `tool_call_of`)
    start, end = s.start + base, s.end + base
    if is_action_document(value):
        source = text[s.start : s.end]
        return ActionBlock(start, end, source, value, s.repaired, s.truncated, s.suspect, s.origin)
    call = tool_call_of(value)
    if call is not None:
        source = text[s.start : s.end]
        return ToolCallBlock(
            start, end, source, call[0], call[1], s.repaired, s.truncated, s.suspect, s.origin
        )
    return None


def blocks_of(
    items: Iterable[Item], text: str, *, merge: bool = True, base: int = 0
) -> list[Block]:
    """Turn scanned items into blocks; adjacent text merged when ``merge``. ``base``: the
    offset of ``text`` in the reply (the stream's retained tail), added to every span."""
    blocks: list[Block] = []
    run_start = -1  # start of the text run being merged, -1 when none
    run_end = 0
    for item in items:
        block = None if isinstance(item, TextSpan) else _document(item, text, base)
        if block is None:
            if run_start < 0 or not merge:
                if run_start >= 0:
                    blocks.append(_text(text, run_start, run_end, base))
                run_start = item.start
            run_end = item.end
            continue
        if run_start >= 0:
            blocks.append(_text(text, run_start, run_end, base))
            run_start = -1
        blocks.append(block)
    if run_start >= 0:
        blocks.append(_text(text, run_start, run_end, base))
    return blocks


def _text(text: str, start: int, end: int, base: int) -> TextBlock:
    return TextBlock(start + base, end + base, text[start:end])


def parse_reply(text: str) -> list[Block]:
    """Split a model reply into text, action and tool-call blocks tiling it exactly."""
    state = ScanState()
    token = spend_from(state.repairs)  # one json-repair budget for the reply
    try:  # items die young (an iterator, not a list): less work for the GC
        return blocks_of(scan_items(text, state, eof=True), text)
    finally:
        stop_spending(token)
