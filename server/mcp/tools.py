"""MCP servers' tools as agent-ls tools: `mcp__<server>__<tool>`, for every tool protocol.

A name keeps only `[A-Za-z0-9_-]` (others become `_`), at most 64 characters, unique (a
clash gets `_2`, `_3` ...). The description and input schema are the server's. A call:
arguments checked against the input schema (jsonschema: the model gets the field and the
rule), consent asked unless the server's `allow` lists the tool or `commands` is `allow`,
the call made with the `mcpTimeout` limit (cancelled on the server when it is passed).
The result is what the model reads: text in order, structured content as JSON, an image or
other blob as one line with its type and size, cut like a command's output; `isError`
results and protocol errors come back as errors.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

import jsonschema
import mcp_types
from mcp.shared.exceptions import MCPError

from actions.errors import InvalidToolCall, ToolExecutionError
from actions.shell.output import CappedOutput
from actions.tools.base import Tool, ToolResult
from actions.tools.consent import ToolCallRequest, ToolGate
from actions.tools.run_command import Consent
from server.mcp.connection import McpConnection, ServerDown, describe

PREFIX = "mcp__"
MAX_NAME = 64
_INVALID = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """The name the model calls: valid for native tool calling, unique among `taken`."""
    base = _INVALID.sub("_", f"{PREFIX}{server}__{tool}")[:MAX_NAME]
    name, n = base, 1
    while name in taken:
        n += 1
        suffix = f"_{n}"
        name = base[: MAX_NAME - len(suffix)] + suffix
    taken.add(name)
    return name


class McpTool:
    """One server tool, as the registry calls it."""

    def __init__(
        self,
        name: str,
        connection: McpConnection,
        tool: mcp_types.Tool,
        gate: ToolGate,
        allowed: set[str],
        trust_all: bool,
        timeout: float,
    ) -> None:
        self.name = name
        self.connection = connection
        self.tool = tool
        self._gate = gate
        self._allowed = allowed  # the session's tools allowed always (names as offered)
        self._trust_all = trust_all
        self._timeout = timeout

    def manifest(self) -> Tool:
        server = self.connection.spec.name
        about = (self.tool.description or self.tool.title or self.tool.name).strip()
        return Tool(self.name, f"[MCP server {server}] {about}", self.tool.input_schema)

    async def execute(self, args: Mapping[str, Any]) -> ToolResult:
        arguments = dict(args)
        _validate(self.name, self.tool.input_schema, arguments)
        if not await self._consented(arguments):
            return ToolResult(
                ok=False,
                text=f"{self.name}: not run: the user denied it; do not call it again as it was",
                data=self._data(arguments, ran=False),
                error_kind="tool_refused",
            )
        try:
            note, result = await self._call(arguments)
        except TimeoutError:
            raise ToolExecutionError(
                f"{self.name}: no result within {self._timeout:g} s (mcpTimeout); cancelled"
            ) from None
        except ServerDown as down:
            raise ToolExecutionError(f"{self.name}: {down}") from None
        except MCPError as error:
            raise ToolExecutionError(
                f"{self.name}: the server answered an error: {describe(error)}"
            ) from None
        text = render(result)
        if note:
            text = f"{note}\n{text}"
        data = self._data(arguments, ran=True)
        if result.is_error:
            return ToolResult(False, text, data, error_kind="mcp_tool_error")
        return ToolResult.success(text, data)

    async def _call(self, arguments: dict[str, Any]) -> tuple[str, mcp_types.CallToolResult]:
        """The call; a server found stopped is started again (as its backoff allows) and
        the call made once more. The model is told each restart and, when the server
        stopped again, until when it is given up."""
        notes: list[str] = []
        for attempt in (1, 2):
            try:
                note = await self.connection.ensure_ready()
                notes += [note] if note else []
                result = await self.connection.call(self.tool.name, arguments, self._timeout)
                return " ".join(notes), result
            except ServerDown as down:
                if not down.closed or attempt == 2 or notes:
                    raise ServerDown(" ".join([*notes, str(down)]), closed=down.closed) from down
        raise AssertionError("unreachable")  # the second attempt returns or raises

    async def _consented(self, arguments: dict[str, Any]) -> bool:
        spec = self.connection.spec
        if self._trust_all or spec.allows(self.tool.name) or self.name in self._allowed:
            return True
        details = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
        request = ToolCallRequest("mcp", spec.name, self.tool.name, details)
        consent = await self._gate.ask_tool(request)
        if consent is Consent.ALWAYS:
            self._allowed.add(self.name)
        return consent is not Consent.DENY

    def _data(self, arguments: dict[str, Any], *, ran: bool) -> dict[str, Any]:
        spec = self.connection.spec
        return {"server": spec.name, "tool": self.tool.name, "arguments": arguments, "ran": ran}


def _validate(name: str, schema: Mapping[str, Any], arguments: dict[str, Any]) -> None:
    """The first violation of the tool's input schema, as the model's error."""
    try:
        validator_class = jsonschema.validators.validator_for(schema)
        errors = sorted(
            validator_class(schema).iter_errors(arguments), key=lambda e: list(e.absolute_path)
        )
    except jsonschema.SchemaError:
        return  # the server's schema is broken: let the server judge the arguments
    if errors:
        error = errors[0]
        where = "args" + "".join(
            f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path
        )
        raise InvalidToolCall(name, where, error.message)


def render(result: mcp_types.CallToolResult) -> str:
    """What the model reads of a result (see the module), capped like command output."""
    parts = list(_content_lines(result.content))
    if result.structured_content is not None:
        structured = json.dumps(result.structured_content, ensure_ascii=False, indent=1)
        if structured not in parts:
            parts.append(structured)
    output = CappedOutput()
    output.feed("\n".join(parts).encode("utf-8"))
    return output.text() or "(no content)"


def _content_lines(blocks: Iterable[mcp_types.ContentBlock]) -> Iterable[str]:
    for block in blocks:
        if isinstance(block, mcp_types.TextContent):
            yield block.text
        elif isinstance(block, mcp_types.ImageContent | mcp_types.AudioContent):
            yield f"[{block.type} {block.mime_type}, {_size(block.data)} bytes]"
        elif isinstance(block, mcp_types.EmbeddedResource):
            resource = block.resource
            if isinstance(resource, mcp_types.TextResourceContents):
                yield resource.text
            else:
                mime = resource.mime_type or "application/octet-stream"
                yield f"[resource {resource.uri} {mime}, {_size(resource.blob)} bytes]"
        elif isinstance(block, mcp_types.ResourceLink):
            yield f"[resource link {block.uri} {block.mime_type or ''}]".replace(" ]", "]")
        else:
            yield f"[{getattr(block, 'type', 'content')}]"


def _size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except ValueError:
        return len(data)
