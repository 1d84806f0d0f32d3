"""A model reply's documents, ready to act on: cut-off marking, fenced bodies, validation.

`mark_last_document_truncated` flags the document a provider's
output limit cut; `to_action` turns a document block into a validated action, resolving its
``{"fence": N}`` bodies from the reply's fenced code blocks (`DocumentFences`, found once and
only when a document references one).
"""

from __future__ import annotations

from dataclasses import replace

from actions.errors import ActionError
from actions.fence_refs import has_references, resolve_references
from actions.schema import Action, ToolCallAction, ToolCallSpec, validate_action
from parsing import ActionBlock, Block, TextBlock, ToolCallBlock
from parsing.code_fences import CodeFence, code_fences


def mark_last_document_truncated(blocks: list[Block]) -> None:
    """The provider cut the reply (max tokens): its last document cannot be complete, unless
    text follows it (the cut then fell in that text)."""
    for index in range(len(blocks) - 1, -1, -1):
        block = blocks[index]
        if isinstance(block, TextBlock):
            if block.text.strip() and index == len(blocks) - 1:
                return
            continue
        blocks[index] = replace(block, truncated=True)
        return


class DocumentFences:
    """The reply's fenced code blocks, found once and only if a document references one."""

    def __init__(self, reply: str, documents: list[ActionBlock | ToolCallBlock]) -> None:
        self.reply = reply
        self.spans = [(b.start, b.end) for b in documents]
        self._fences: list[CodeFence] | None = None

    def get(self) -> list[CodeFence]:
        if self._fences is None:
            self._fences = code_fences(self.reply, self.spans)
        return self._fences


def to_action(block: ActionBlock | ToolCallBlock, fences: DocumentFences | None = None) -> Action:
    """The validated action of a document block (ActionError: why it cannot be used;
    TruncatedBody: a fence it references was cut off)."""
    if block.truncated:
        raise ActionError(
            "the document was cut off before its end, so nothing was applied; send it again "
            "complete (change large files with search/replace edits)"
        )
    if block.suspect:
        raise ActionError(
            "the document is malformed JSON that could not be decoded without losing "
            "characters; send it again as valid JSON (escape quotes and newlines in strings), "
            'or put file bodies in fenced code blocks referenced as {"fence": N}'
        )
    if isinstance(block, ToolCallBlock):
        return ToolCallAction(
            action="tool_call", tool_call=ToolCallSpec(function_name=block.name, args=block.args)
        )
    document = block.document
    if fences is not None and has_references(document):
        document = resolve_references(document, fences.get())
    return validate_action(document)
