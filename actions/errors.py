"""The error hierarchy of ``actions``.

Every failure that the model (or the user) should hear about is an ``ActionError``. Handlers in
``server`` convert them to JSON-RPC errors; the tool registry converts them to error tool
results, so none of them ends a chat session.
"""

from __future__ import annotations

from collections.abc import Sequence


class ActionError(Exception):
    """Base class: a short, precise message meant to be shown to the model and the user."""

    kind: str = "action_error"

    @property
    def message(self) -> str:
        """The human-readable message (the first constructor argument)."""
        return str(self.args[0]) if self.args else self.kind


class ParsingError(ActionError):
    """A model reply (or a tool call in it) could not be decoded."""

    kind = "parsing_error"


class InvalidAction(ActionError):
    """An action document failed validation; ``errors`` holds one line per problem."""

    kind = "invalid_action"

    def __init__(self, errors: Sequence[str]) -> None:
        self.errors: tuple[str, ...] = tuple(errors) or ("invalid action document",)
        super().__init__("\n".join(self.errors))


class InvalidToolCall(ActionError):
    """Tool arguments violate the tool's schema; ``field`` is the path of the bad field."""

    kind = "invalid_tool_call"

    def __init__(self, tool: str, field: str, problem: str) -> None:
        self.tool = tool
        self.field = field
        self.problem = problem
        super().__init__(f"{tool}: {field}: {problem}")


class ToolNotFound(ActionError):
    """The model named a tool that does not exist; the message lists the valid names."""

    kind = "tool_not_found"

    def __init__(self, name: str, valid: Sequence[str]) -> None:
        self.name = name
        self.valid: tuple[str, ...] = tuple(valid)
        listed = ", ".join(self.valid) if self.valid else "(none)"
        super().__init__(f"unknown tool {name!r}; valid tools: {listed}")


class ToolExecutionError(ActionError):
    """A tool ran but failed (I/O error, subprocess failure...)."""

    kind = "tool_execution_error"


class PathRefused(ActionError):
    """A path from the model was refused by workspace confinement."""

    kind = "path_refused"

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"path {path!r} refused: {reason}")


class WriteFailed(ActionError):
    """The system refused a write (disk full, quota, read-only, file too large): names what
    could not be written and why. A plan it was part of is rolled back whole."""

    kind = "write_failed"

    def __init__(self, what: str, error: OSError) -> None:
        self.what = what
        self.reason = error.strerror or type(error).__name__
        super().__init__(f"{what} could not be written: {self.reason}")
