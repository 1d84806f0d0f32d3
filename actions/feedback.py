"""What the model is told about a reply that could not be used whole (SPEC §2.7, §11).

- a document cut off (the provider stopped at its output limit, or the JSON / a referenced
  fence ends unterminated): which document, that nothing of it was applied, and how to go on
  without re-sending a whole file (search/replace edits; a large new file in parts);
- a text-only reply cut at the output limit: continue where it stopped;
- documents that could not be decoded (left as text by the parser): where, and the JSON error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from parsing.blocks import ActionBlock, ToolCallBlock
from parsing.malformed import MalformedDocument

FILE_SLOTS = ("first_file", "next_file")
MULTI_RESULTS = "Results of the"
"""How a message carrying several documents' results opens (history trimming knows it)."""


def describe_document(block: ActionBlock | ToolCallBlock) -> str:
    """A short name for a document: ``continue_multi_file: update_file /src/a.py``."""
    if isinstance(block, ToolCallBlock):
        return f"tool_call {block.name}"
    document = block.document
    call = document.get("tool_call")
    if isinstance(call, Mapping):
        return f"tool_call {call.get('function_name', '?')}"
    op = _file_op(document)
    if op is None:
        return block.action
    action, path = op
    return f"{block.action}: {action} {path}"


def _file_op(document: Mapping[str, Any]) -> tuple[str, str] | None:
    for slot in FILE_SLOTS:
        op = document.get(slot)
        if isinstance(op, Mapping):
            file = op.get("file")
            path = file.get("path") if isinstance(file, Mapping) else None
            return str(op.get("action", "?")), str(path or "?")
    return None


def render_cut_document(
    block: ActionBlock | ToolCallBlock, *, number: int, total: int, by_limit: bool
) -> str:
    """A document that was cut off: never applied; how to continue with smaller steps."""
    which = f"document {number} of {total}" if total > 1 else "your action document"
    which += f" ({describe_document(block)})"
    if by_limit:
        head = f"Your reply reached the output token limit and {which} was cut off"
    else:
        head = f"In your reply, {which} was cut off before its end (unterminated JSON or fence)"
    head += ": nothing of it was applied."
    if isinstance(block, ToolCallBlock) or block.action == "tool_call":
        return f"{head}\nSend that tool call again, complete."
    op = _file_op(block.document)
    if op is None:
        return f"{head}\nSend it again, shorter."
    action, path = op
    if action == "update_file":
        advice = (
            f"Do not send the whole of {path} again: it does not fit in one reply. Change it "
            "with update_file edits (search/replace blocks holding only the lines that "
            "change), in several continue_multi_file documents if needed."
        )
    elif action == "create_file":
        advice = (
            f"{path} is too large for one reply: create it with its first part (ending at a "
            "complete line), then add the rest with update_file edits whose search is the "
            "file's last lines and whose replace is those lines followed by the next part."
        )
    else:
        advice = "Send it again."
    return f"{head}\n{advice}"


def render_cut_text() -> str:
    """A text-only reply stopped by the output token limit: not a complete answer."""
    return (
        "Your reply reached the output token limit and was cut off, so it is not complete. "
        "Continue exactly where it stopped, without repeating what you already wrote."
    )


def render_malformed(found: Sequence[MalformedDocument]) -> str:
    """Documents that could not be decoded: where and why; nothing was executed."""
    lines = ["Your reply contains action document(s) that are not valid JSON; nothing was run:"]
    for doc in found:
        lines.append(
            f"- {doc.kind} document at line {doc.line} of your reply ({doc.excerpt!r}): "
            f"{doc.problem}"
        )
    lines.append(
        "Send the corrected document(s) as valid JSON in a ```json block "
        "(double-quoted keys and strings, commas between fields)."
    )
    return "\n".join(lines)


def join_results(parts: Sequence[tuple[str, str]]) -> str:
    """Several documents' results, in order, each under its document's name."""
    if len(parts) == 1:
        return parts[0][1]
    listed = "\n\n".join(
        f"[{number}/{len(parts)}] {name}:\n{text}" for number, (name, text) in enumerate(parts, 1)
    )
    return f"{MULTI_RESULTS} {len(parts)} documents of your reply, in order:\n\n{listed}"
