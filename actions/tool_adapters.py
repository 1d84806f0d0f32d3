"""Tool adapters: one per way of talking to a model about tools (SPEC §5).

- ``json`` (default): tools are described in the system prompt and called with
  ``{"action": "tool_call", ...}`` documents — works with any model.
- ``xml``: the same prompt, plus Hermes/Qwen-style ``<tool_call>{"name", "arguments"}</tool_call>``
  calls, which models trained on that format emit more reliably.
- ``native``: the manifests travel in the provider's own tool API (OpenAI ``tools``), the
  provider returns structured calls, and results go back as ``tool`` messages.

Whatever the style, the reply parser recognises every call shape (JSON document, XML tag,
bare ``{"name", "arguments"}``), so a model that mixes styles still works.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from actions.prompt import render_system_prompt, render_tool_result
from actions.schema import ToolCallSpec
from actions.tools.base import Tool, ToolResult

ToolStyle = Literal["json", "xml", "native"]
TOOL_STYLES: tuple[ToolStyle, ...] = ("json", "xml", "native")

_XML_SECTION = """\
Calling tools: write each call as a <tool_call> tag holding a JSON object with the tool's
name and arguments, for example:
<tool_call>{example}</tool_call>
Several calls may share one reply: they run in order and their results come back together
as the next message."""

_NATIVE_SECTION = """\
Calling tools: use the function-calling interface of this conversation (the tools are attached
to the request); their results come back as tool messages. File changes still go through
start_multi_file / continue_multi_file documents."""


@dataclass(frozen=True)
class ToolAdapter:
    style: ToolStyle
    fenced_bodies: bool = True
    """Teach file bodies as fenced code blocks (False: a model constrained to pure JSON)."""

    def system_prompt(
        self,
        tools: Sequence[Tool],
        *,
        workspace_name: str,
        instructions: str = "",
        folders: Sequence[str] = (),
        rules: str = "",
    ) -> str:
        """The system prompt: the action protocol plus how this style calls tools."""
        base = render_system_prompt(
            tools,
            workspace_name=workspace_name,
            instructions=instructions,
            fenced_bodies=self.fenced_bodies,
            folders=folders,
            rules=rules,
        )
        if self.style == "xml":
            example = json.dumps({"name": "read_file", "arguments": {"path": "/src/App.jsx"}})
            return base + "\n\n" + _XML_SECTION.format(example=example)
        if self.style == "native":
            return base + "\n\n" + _NATIVE_SECTION
        return base

    def native_tools(self, tools: Sequence[Tool]) -> list[Tool] | None:
        """The manifests to hand to the provider's tool API (native style only)."""
        return list(tools) if self.style == "native" and tools else None

    def result_text(self, call: ToolCallSpec, result: ToolResult) -> str:
        """A tool's output, as the model reads it."""
        return render_tool_result(call, result)


def tool_adapter(style: str, *, fenced_bodies: bool = True) -> ToolAdapter:
    """The adapter for a configured style (ValueError names the valid ones)."""
    if style not in TOOL_STYLES:
        raise ValueError(
            f"unknown tool protocol {style!r}; expected one of {', '.join(TOOL_STYLES)}"
        )
    return ToolAdapter(style, fenced_bodies)
