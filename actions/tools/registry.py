"""The tool registry: implementations by name, argument checking, errors as results.

``call`` never raises for anything the model did: an unknown tool, bad arguments, a refused
path or a failing tool all come back as an error ``ToolResult`` (SPEC §5: "none crash the
session"). Cancellation (``asyncio.CancelledError``) still propagates.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from actions.errors import ActionError, InvalidToolCall, ToolExecutionError, ToolNotFound
from actions.schema_errors import describe_value
from actions.tools.argcheck import check_args
from actions.tools.base import Tool, ToolImplementation, ToolResult

log = logging.getLogger(__name__)


class ToolRegistry:
    """Tools by name, in registration order."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[Tool, ToolImplementation]] = {}

    def register(self, manifest: Tool, implementation: ToolImplementation) -> None:
        """Add a tool; its manifest and implementation must carry the same name."""
        if manifest.name != implementation.name:
            raise ValueError(
                f"manifest {manifest.name!r} != implementation {implementation.name!r}"
            )
        if manifest.name in self._entries:
            raise ValueError(f"tool {manifest.name!r} is already registered")
        self._entries[manifest.name] = (manifest, implementation)

    def replaced(self, implementation: ToolImplementation) -> ToolRegistry:
        """A copy whose tool of the same name runs `implementation` (its manifest kept, the
        other tools shared): e.g. a turn's read_file over the editor's buffers."""
        manifest, _ = self.get(implementation.name)
        copy = ToolRegistry()
        copy._entries = dict(self._entries)
        copy._entries[manifest.name] = (manifest, implementation)
        return copy

    def extended(self, manifest: Tool, implementation: ToolImplementation) -> ToolRegistry:
        """A new registry: these tools and one more (this one is left as it was)."""
        registry = ToolRegistry()
        registry._entries = dict(self._entries)
        registry.register(manifest, implementation)
        return registry

    def names(self) -> list[str]:
        return list(self._entries)

    def manifests(self) -> list[Tool]:
        return [manifest for manifest, _ in self._entries.values()]

    def get(self, name: str) -> tuple[Tool, ToolImplementation]:
        """The manifest and implementation of ``name``; ``ToolNotFound`` lists valid names."""
        try:
            return self._entries[name]
        except KeyError:
            raise ToolNotFound(name, self.names()) from None

    async def call(self, name: str, args: Any) -> ToolResult:
        """Run one tool call; every failure becomes an error ``ToolResult``."""
        try:
            manifest, implementation = self.get(name)
            if not isinstance(args, Mapping):
                raise InvalidToolCall(
                    name, "args", f"expected an object; got {describe_value(args)}"
                )
            check_args(name, manifest.parameters, args)
            return await implementation.execute(args)
        except ActionError as error:
            return ToolResult.failure(error)
        except OSError as error:
            return ToolResult.failure(ToolExecutionError(f"{name}: {error}"))
        except Exception as error:  # a bug in a tool must not end the chat session
            log.exception("tool %s crashed", name)
            return ToolResult.failure(ToolExecutionError(f"{name} failed: {error!r}"))
