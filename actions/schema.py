"""Typed action documents (SPEC §2) and their validation.

The model emits JSON documents with a top-level ``"action"``; ``validate_action`` turns one
decoded document into a frozen pydantic model or raises ``InvalidAction`` whose lines name the
bad field, what was expected and the allowed values, ready to be sent back to the model.

Leniency, on purpose (each costs a retry from a small model otherwise):
- unknown extra fields are ignored (models add "reasoning", "thought"...);
- ``message`` of start/continue is optional (empty string when missing);
- ``tool_call.args`` is optional (``{}``); its content is checked by the tool registry against
  the tool's manifest, not here, so new tools need no change to this module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from actions.errors import InvalidAction
from actions.schema_errors import describe_errors, describe_value
from actions.schema_json import JsonSchema, SchemaBounds, ToolManifestLike, build_json_schema

ACTION_KINDS: tuple[str, ...] = (
    "text_response",
    "tool_call",
    "start_multi_file",
    "continue_multi_file",
)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class FileContent(_Model):
    """A file with its whole new content (create / update)."""

    path: str = Field(min_length=1)
    content: str


class SearchReplace(_Model):
    """One edit of ``update_file``: ``search`` (existing text, matched once) -> ``replace``."""

    search: str
    replace: str


class FileEdits(_Model):
    """A file changed by search/replace blocks instead of its whole content."""

    path: str = Field(min_length=1)
    edits: list[SearchReplace] = Field(min_length=1)


def _file_body_kind(value: Any) -> str:
    """Which body an update carries: ``content`` or ``edits`` (exactly one of the two)."""
    if isinstance(value, Mapping):
        return "edits" if "edits" in value else "content"
    return "edits" if isinstance(value, FileEdits) else "content"


class FileRef(_Model):
    """A file named for deletion; ``content`` may be present and is ignored."""

    path: str = Field(min_length=1)
    content: str | None = None


class CreateFileOp(_Model):
    """Create a file (or replace it if it exists) with ``file.content``."""

    action: Literal["create_file"]
    file: FileContent

    @property
    def path(self) -> str:
        return self.file.path

    @property
    def content(self) -> str | None:
        return self.file.content


class UpdateFileOp(_Model):
    """Change a file: its whole new ``file.content``, or search/replace ``file.edits``."""

    action: Literal["update_file"]
    file: Annotated[
        Annotated[FileContent, Tag("content")] | Annotated[FileEdits, Tag("edits")],
        Discriminator(_file_body_kind),
    ]

    @field_validator("file", mode="before")
    @classmethod
    def _one_body(cls, file: Any) -> Any:
        if isinstance(file, Mapping) and ("content" in file) == ("edits" in file):
            given = "both content and edits" if "content" in file else "neither content nor edits"
            raise ValueError(
                f"{given}; expected exactly one: "
                "content (the whole new file) or edits (search/replace blocks)"
            )
        return file

    @property
    def path(self) -> str:
        return self.file.path

    @property
    def content(self) -> str | None:
        return self.file.content if isinstance(self.file, FileContent) else None

    @property
    def edits(self) -> tuple[SearchReplace, ...] | None:
        return tuple(self.file.edits) if isinstance(self.file, FileEdits) else None


class DeleteFileOp(_Model):
    """Delete a file (only inside ``continue_multi_file``)."""

    action: Literal["delete_file"]
    file: FileRef

    @property
    def path(self) -> str:
        return self.file.path

    @property
    def content(self) -> str | None:
        return None


FileOp: TypeAlias = CreateFileOp | UpdateFileOp | DeleteFileOp
"""One file operation of a plan; ``.action``, ``.path`` and ``.content`` on every variant."""

FirstFileOp = Annotated[CreateFileOp | UpdateFileOp, Field(discriminator="action")]
NextFileOp = Annotated[CreateFileOp | UpdateFileOp | DeleteFileOp, Field(discriminator="action")]


class Plan(_Model):
    """What the whole multi-file change is about and which files it will touch."""

    description: str
    files_to_modify: list[str] = Field(min_length=1)


class ToolCallSpec(_Model):
    """The body of a ``tool_call``: which tool, with which arguments."""

    function_name: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)


class TextResponse(_Model):
    """Answer the user; touches nothing. Ends the turn."""

    action: Literal["text_response"]
    text_response: str


class ToolCallAction(_Model):
    """Ask the environment for context (``list_files``, ``read_file``...)."""

    action: Literal["tool_call"]
    tool_call: ToolCallSpec


class StartMultiFile(_Model):
    """Begin a plan: its description, its files and the first file operation."""

    action: Literal["start_multi_file"]
    plan: Plan
    first_file: FirstFileOp
    message: str = ""


class ContinueMultiFile(_Model):
    """The next file operation of the plan in progress."""

    action: Literal["continue_multi_file"]
    next_file: NextFileOp
    message: str = ""


Action: TypeAlias = TextResponse | ToolCallAction | StartMultiFile | ContinueMultiFile

_ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Annotated[Action, Field(discriminator="action")])


def validate_action(document: Mapping[str, Any] | Any) -> Action:
    """Validate a decoded JSON document as one of the four actions.

    Raises ``InvalidAction`` with one line per problem (capped), e.g.
    ``first_file.action: expected one of create_file, update_file; got 'delete_file'``.
    """
    if not isinstance(document, Mapping):
        raise InvalidAction([f"document: expected a JSON object; got {describe_value(document)}"])
    kind = document.get("action")
    allowed = ", ".join(ACTION_KINDS)
    if kind is None:
        raise InvalidAction([f"action: missing; expected one of {allowed}"])
    if kind not in ACTION_KINDS:
        raise InvalidAction([f"action: expected one of {allowed}; got {describe_value(kind)}"])
    try:
        return _ACTION_ADAPTER.validate_python(dict(document))
    except ValidationError as exc:
        raise InvalidAction(describe_errors(exc, document)) from None


def action_json_schema(
    *,
    bounded: bool = False,
    bounds: SchemaBounds | None = None,
    tools: Sequence[ToolManifestLike] = (),
) -> JsonSchema:
    """A self-contained JSON Schema (draft 2020-12) of the four action documents.

    ``bounded=True`` adds ``maxLength``/``maxItems`` everywhere (``bounds`` sets them) for
    constrained decoding. With ``tools`` (manifests: ``.name``, ``.parameters``) the
    ``tool_call`` body becomes one branch per tool carrying that tool's argument schema.
    """
    return build_json_schema(
        _ACTION_ADAPTER.json_schema(),
        bounded=bounded,
        bounds=bounds or SchemaBounds(),
        tools=tools,
    )
