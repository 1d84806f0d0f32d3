"""An ACP prompt (content blocks) as the user message the agent loop takes.

Text blocks are the message; resources the client attached (`@file` mentions: embedded text
resources or resource links) are appended as context the model can read, with their URI.
Images and audio are not understood by the agent loop: they are named, not dropped silently.
"""

from __future__ import annotations

from typing import Any


def prompt_text(blocks: list[Any]) -> str:
    parts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if text is not None:
                parts.append(f"\nContext: {resource.uri}\n```\n{text}\n```")
            else:
                parts.append(f"\n(attached binary resource {resource.uri} was not read)")
        elif kind == "resource_link":
            parts.append(f"\nContext: {block.uri} ({block.name})")
        elif kind in ("image", "audio"):
            parts.append(f"\n(an attached {kind} was not read: agent-ls reads text only)")
    return "\n".join(part for part in parts if part)


def typed_text(blocks: list[Any]) -> str:
    """What the user typed: the text blocks (a resumed session shows this, not the context)."""
    return "\n".join(b.text for b in blocks if getattr(b, "type", None) == "text" and b.text)
