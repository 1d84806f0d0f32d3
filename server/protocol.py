"""The wire contract of agent-ls' own LSP messages: names and typed payloads (SPEC §8).

`vscode-client/src/protocol.ts` is generated from this module (names and payload types:
scripts/gen_protocol_ts.py, run by the extension's build); tests/unit/test_protocol_ts.py
fails while the committed file is stale. Every payload is an attrs class declared in this
module (frozen, keyword-only fields) converted by one cattrs converter, `CONVERTER`: pygls'
converter (so lsprotocol types nested inside work) plus the hooks below. Fields are
camelCase on the wire; a field whose default is None is left out while None, every other
field is always sent. JSON from the model (tool arguments, action documents) is typed
`JsonObject` and passed through as is.

Adding a progress kind: declare a class here with `kind: ClassVar[...]`, add it to
`ProgressEvent` and its name to `ProgressKind`, then run `python scripts/gen_protocol_ts.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar, Literal, TypeAlias, TypeVar, Union, get_args, get_origin

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override
from lsprotocol import types
from pygls.protocol import default_converter

from actions.checkpoints.types import CheckpointInfo
from parsing.blocks import ActionBlock, Block, TextBlock

AGENT_CHAT = "agent/chat"
AGENT_CHAT_PROGRESS = "agent/chatProgress"
AGENT_STATUS = "agent/status"
AGENT_SESSIONS = "agent/sessions"
AGENT_SEARCH = "agent/search"
AGENT_INDEX_UPDATED = "agent/indexUpdated"

CMD_CHAT = "agent.chat"
CMD_UNDO = "agent.undo"
CMD_REDO = "agent.redo"
CMD_CHECKPOINTS = "agent.checkpoints"
CMD_REINDEX = "agent.reindex"
CMD_ACCEPT = "agent.accept"
CMD_REJECT = "agent.reject"
CMD_STAGED_CONTENT = "agent.stagedContent"

CONFIG_SECTION = "agentLs"

# The consents agent-ls asks the editor for (window/showMessageRequest, type Warning): a model's
# shell command and an MCP tool call (actions exactly Run / Always allow / Deny, in order), a
# project's `.mcp.json` (Trust / Deny). Any editor shows the plain message; the params also
# carry `agentLs`, a `ConsentPrompt` naming the kind and its parts (`ConsentRequestParams`
# below), which the VS Code and Neovim clients read instead of the prose. The command prompt's
# message starts with CONSENT_PREFIX (older clients recognise it by that).
CONSENT_PREFIX = "agent-ls: the model wants to run a command in "
CONSENT_RUN = "Run"
CONSENT_ALWAYS = "Always allow"
CONSENT_DENY = "Deny"
CONSENT_TRUST = "Trust"

# JSON as the model wrote it (tool arguments, action documents): typed, never interpreted.
JsonValue: TypeAlias = Union[  # noqa: UP007 (a recursive alias needs Union at runtime)
    str, int, float, bool, list["JsonValue"], dict[str, "JsonValue"], None
]
JsonObject: TypeAlias = dict[str, JsonValue]

# Requests ---------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class ChatContext:
    """What the editor was looking at when the user asked."""

    uri: str = attrs.field(validator=attrs.validators.instance_of(str))
    range: types.Range | None = None
    selection_text: str | None = None


@attrs.frozen(kw_only=True)
class ChatParams:
    """Params of `agent/chat` and of the `agent.chat` command. No `session_id`: a new session."""

    message: str = attrs.field(validator=attrs.validators.instance_of(str))
    session_id: str | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.instance_of(str))
    )
    context: ChatContext | None = None
    work_done_token: int | str | None = None


# Progress: one type per kind --------------------------------------------------------------

ProgressKind = Literal[
    "text",
    "tool_call",
    "tool_result",
    "plan",
    "file_applied",
    "file_staged",
    "error",
    "review",
    "command_output",
]


@attrs.frozen(kw_only=True)
class TextDelta:
    """Text for the user, as it streams."""

    kind: ClassVar[Literal["text"]] = "text"
    delta: str


@attrs.frozen(kw_only=True)
class ToolCallStarted:
    """The model called a tool; its arguments as the model sent them."""

    kind: ClassVar[Literal["tool_call"]] = "tool_call"
    name: str
    args: JsonObject


@attrs.frozen(kw_only=True)
class ToolCallResult:
    """What the tool answered (text cut to 4000 characters)."""

    kind: ClassVar[Literal["tool_result"]] = "tool_result"
    name: str
    ok: bool
    text: str


@attrs.frozen(kw_only=True)
class PlanProgress:
    """A plan started (description, files); sent again at the end of a turn that left planned
    files unapplied, then with what was applied, skipped and applied without being planned."""

    kind: ClassVar[Literal["plan"]] = "plan"
    description: str
    files: list[str]
    applied: list[str] | None = None
    skipped: list[str] | None = None
    unplanned: list[str] | None = None


FileActionName = Literal["create_file", "update_file", "delete_file"]


@attrs.frozen(kw_only=True)
class FileApplied:
    """One file of a plan was written (buffers and disk)."""

    kind: ClassVar[Literal["file_applied"]] = "file_applied"
    path: str
    action: FileActionName
    message: str
    planned: bool


@attrs.frozen(kw_only=True)
class FileStaged:
    """Review mode: one file of a plan was staged for review; nothing was written (the
    `review` event at the end of the turn lists the plan, `agent.accept` writes it)."""

    kind: ClassVar[Literal["file_staged"]] = "file_staged"
    path: str
    action: FileActionName
    message: str
    planned: bool


@attrs.frozen(kw_only=True)
class ErrorProgress:
    """Something went wrong: an invalid document sent back to the model (`retry`: how many
    so far), a refused file (`path`), a rolled-back plan (`rolled_back`), a failed turn."""

    kind: ClassVar[Literal["error"]] = "error"
    message: str
    retry: int | None = None
    path: str | None = None
    rolled_back: list[str] | None = None


@attrs.frozen(kw_only=True)
class ReviewFile:
    """One staged file of a plan in review mode."""

    path: str
    op: Literal["create", "update", "delete"]
    state: Literal["pending", "accepted", "rejected"]
    reason: str | None = None


@attrs.frozen(kw_only=True)
class ReviewProgress:
    """Review mode: the turn's plan is staged, nothing was written (`agent.accept` applies)."""

    kind: ClassVar[Literal["review"]] = "review"
    plan_id: str
    state: Literal["pending", "accepted", "rejected", "partial"]
    description: str
    files: list[ReviewFile]


@attrs.frozen(kw_only=True)
class CommandOutput:
    """Output of the command `run_command` is running, as it comes (stdout and stderr
    interleaved); its result follows as a `tool_result`."""

    kind: ClassVar[Literal["command_output"]] = "command_output"
    command: str
    text: str


ProgressEvent = (
    TextDelta
    | ToolCallStarted
    | ToolCallResult
    | PlanProgress
    | FileApplied
    | FileStaged
    | ErrorProgress
    | ReviewProgress
    | CommandOutput
)
PROGRESS_TYPES: dict[str, type[ProgressEvent]] = {cls.kind: cls for cls in get_args(ProgressEvent)}


@attrs.frozen(kw_only=True)
class ChatProgress:
    """One `agent/chatProgress` notification: `{sessionId, kind, delta}` for text,
    `{sessionId, kind, data: {...the event's fields}}` for every other kind."""

    session_id: str
    event: ProgressEvent


# Results ----------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class PlanSummary:
    """A plan at the end of its turn: what was planned, applied, skipped, added."""

    description: str
    files: list[str]
    applied: list[str]
    skipped: list[str]
    unplanned: list[str]


@attrs.frozen(kw_only=True)
class TextRecord:
    """A text block of a reply (`reply`: which reply of the turn; absent in `agent-ls parse`)."""

    type: Literal["text"] = "text"
    start: int
    end: int
    text: str
    repaired: bool = False
    truncated: bool = False
    suspect: bool = False
    reply: int | None = None


@attrs.frozen(kw_only=True)
class ActionRecord:
    """An action document of a reply, decoded."""

    type: Literal["action"] = "action"
    start: int
    end: int
    document: JsonObject
    repaired: bool = False
    truncated: bool = False
    suspect: bool = False
    reply: int | None = None


@attrs.frozen(kw_only=True)
class ToolCallRecord:
    """A tool call of a reply (Hermes/Qwen shape)."""

    type: Literal["tool_call"] = "tool_call"
    start: int
    end: int
    name: str
    args: JsonObject
    repaired: bool = False
    truncated: bool = False
    suspect: bool = False
    reply: int | None = None


BlockRecord = TextRecord | ActionRecord | ToolCallRecord


def block_record(block: Block, reply: int | None = None) -> BlockRecord:
    """The record of one parsed block (what `agent/chat` returns, `agent-ls parse` prints)."""
    if isinstance(block, TextBlock):
        return TextRecord(start=block.start, end=block.end, text=block.text, reply=reply)
    if isinstance(block, ActionBlock):
        return ActionRecord(
            start=block.start,
            end=block.end,
            document=block.document,
            repaired=block.repaired,
            truncated=block.truncated,
            suspect=block.suspect,
            reply=reply,
        )
    return ToolCallRecord(
        start=block.start,
        end=block.end,
        name=block.name,
        args=block.args,
        repaired=block.repaired,
        truncated=block.truncated,
        suspect=block.suspect,
        reply=reply,
    )


@attrs.frozen(kw_only=True)
class ChatResult:
    """Result of `agent/chat` and of the `agent.chat` command."""

    session_id: str
    text: str
    blocks: list[BlockRecord]
    plan: PlanSummary | ReviewPlan | None = None
    checkpoint_id: str | None = None


@attrs.frozen(kw_only=True)
class UndoneFile:
    """A file undo/redo wrote (`exists: false`: it deleted the file)."""

    path: str
    exists: bool


@attrs.frozen(kw_only=True)
class UndoResult:
    """Result of `agent.undo` / `agent.redo` (`overridden`: changes lost to `force`)."""

    checkpoint_id: str
    files: list[UndoneFile]
    overridden: list[str]


@attrs.frozen(kw_only=True)
class CheckpointEntry:
    """One entry of `agent.checkpoints` (newest first); `time` is ISO 8601 (UTC)."""

    id: str
    time: str
    description: str
    session_id: str
    files: list[str]
    state: Literal["applied", "undone"]
    folders: list[str] | None = None  # multi-root: the folders the plan touched


def checkpoint_entry(info: CheckpointInfo, folders: list[str] | None = None) -> CheckpointEntry:
    """`folders`: the folder names of a multi-root workspace (its files are qualified)."""
    touched = None
    if folders:
        touched = [name for name in folders if any(f.startswith(name + "/") for f in info.files)]
    return CheckpointEntry(
        id=info.id,
        time=info.iso_time,
        description=info.description,
        session_id=info.session_id,
        files=list(info.files),
        state=info.state,
        folders=touched,
    )


@attrs.frozen
class Candidate:
    """One step of the provider resolution: where it looked, what it found, if it was chosen."""

    source: str
    detail: str
    chosen: bool = False


@attrs.frozen
class StatusReport:
    """What `agent/status` returns and `agent-ls doctor --json` prints (`reachable` None:
    not checked; `base_url` None: the provider has none)."""

    provider: str | None
    model: str | None
    reason: str
    reachable: bool | None
    detail: str
    base_url: str | None = None
    candidates: tuple[Candidate, ...] = ()
    index: IndexReport | None = None  # the retrieval index (server/features/indexing.py)
    folders: list[FolderStatus] | None = None  # the workspace folders (None: none open)
    rules: RulesReport | None = None  # the project's rules files in use (server/rules.py)
    commands: CommandsReport | None = None  # the run_command policy in force
    mcp: list[McpServerStatus] | None = None  # the MCP servers (None: none configured)


@attrs.frozen(kw_only=True)
class CommandsReport:
    """The policy of the model's commands (`run_command`): `mode` ask / allow / off, the
    lines that run without asking (`allow_list` globs), the time limit in seconds; `offered`:
    whether the model gets the tool with the provider in use (never to the embedded model)."""

    mode: str
    allow_list: list[str]
    timeout: float
    offered: bool


@attrs.frozen(kw_only=True)
class RulesFileReport:
    """One rules file (AGENTS.md, CLAUDE.md, the user's own): `path` on disk, `shown` as the
    system prompt's heading names it, its `bytes` on disk and how many were `included`;
    `cut`: not included whole (the cap was reached); `refused`: why it was not read (a
    symlink out of the workspace, to a secret...), None when it was."""

    path: str
    shown: str
    bytes: int
    included: int
    cut: bool
    refused: str | None = None


@attrs.frozen(kw_only=True)
class RulesReport:
    """The rules files a turn without editor context reads, in prompt order; `limit`: the
    cap in bytes of all of them together; `cut`: some file was cut by it."""

    limit: int
    cut: bool
    files: list[RulesFileReport]


@attrs.frozen(kw_only=True)
class McpServerStatus:
    """One MCP server in `agent/status`: its transport (stdio, http), its state (starting,
    ready, failed, stopped), the tools it offers (as the server names them), why it failed
    (with the last lines it wrote to stderr, redacted), the workspace folder whose settings
    or `.mcp.json` run it (None: the user's settings, an ACP session's), its failures in a row
    and the seconds a new start waits after the last one (`retryDelay`, 0: at the next call)."""

    name: str
    transport: str
    state: str
    tools: list[str]
    error: str | None = None
    folder: str | None = None
    failures: int = 0
    retry_delay: float | None = None


@attrs.frozen(kw_only=True)
class FolderStatus:
    """One workspace folder in `agent/status`: the name paths are qualified by in a
    multi-root workspace ("" for a single folder), its path, its undo history (`applied`
    plans can be undone, `undone` ones redone) and its own retrieval index."""

    name: str
    path: str
    applied: int
    undone: int
    index: IndexReport | None = None


@attrs.frozen(kw_only=True)
class IndexFailure:
    """A document the index could not take, and why."""

    path: str
    reason: str


@attrs.frozen(kw_only=True)
class GraphProgress:
    """How far the vector graph being built is: vectors `added` of the `total` to add."""

    added: int
    total: int


@attrs.frozen(kw_only=True)
class VectorSearchReport:
    """How the nearest chunks are found now: `kind` `hnsw` (a saved graph of `vectors`
    vectors, newer ones searched exactly), `exact` (a small index, or while a graph is
    `building`, built at low priority: its `progress`), `not loaded` (before the first
    search), `pgvector`; `pending`: a graph is due and no process builds it yet; the last
    build `error`."""

    kind: str
    vectors: int | None = None
    building: bool | None = None
    pending: bool | None = None
    progress: GraphProgress | None = None
    error: str | None = None


@attrs.frozen(kw_only=True)
class EmbeddingReport:
    """Dense search in `agent/status` / `agent-ls doctor`: `enabled` with the `model` and its
    chunks by embedding status (`pending` are being embedded in the background), or off with
    the `reason` and a `hint` how to turn it on."""

    enabled: bool
    model: str | None = None
    none: int | None = None
    pending: int | None = None
    ready: int | None = None
    failed: int | None = None
    failures: list[IndexFailure] | None = None
    reason: str | None = None
    hint: str | None = None
    error: str | None = None
    retrying: int | None = None  # failed chunks waiting for their next attempt (backoff)
    search: VectorSearchReport | None = None


@attrs.frozen(kw_only=True)
class SummaryReport:
    """Who writes the summaries of tables and long code the index searches: `source`
    `provider` (the `model` asked; `asked` / `failed` questions so far, `paused` after
    repeated failures, the last `error`) or `fallback` (the deterministic summary, and the
    `reason`: turned off by `indexSummaries`, no provider configured...)."""

    source: str
    model: str | None = None
    reason: str | None = None
    asked: int | None = None
    failed: int | None = None
    paused: bool | None = None
    error: str | None = None


@attrs.frozen(kw_only=True)
class IndexReport:
    """The retrieval index in `agent/status` and `agent-ls doctor --json`: its `state`
    (building, ready, incomplete, not built, unavailable), and when it exists, where it lives
    and its documents by status."""

    state: str
    backend: str | None = None
    location: str | None = None
    dense: bool | None = None
    embeddings: EmbeddingReport | None = None
    documents: dict[str, int] | None = None
    chunks: int | None = None
    failures: list[IndexFailure] | None = None
    watching: bool | None = None
    error: str | None = None
    hint: str | None = None
    summaries: SummaryReport | None = None


@attrs.frozen(kw_only=True)
class SearchHit:
    """One `agent/search` result (and `agent-ls search --json` record): the ORIGINAL
    element (a whole table, code block, definition or passage) and where it is."""

    path: str
    start_line: int
    end_line: int
    type: str
    headings: list[str]
    content: str
    summary: str
    score: float
    start_page: int | None = None  # a PDF's hit: its pages (its lines are those of the PDF's
    end_page: int | None = None  # markdown conversion, which no editor shows)


@attrs.frozen(kw_only=True)
class ReindexResult:
    """`agent.reindex`: the index after the update, and what the update did."""

    documents: dict[str, int]
    chunks: int
    indexed: int
    unchanged: int
    removed: int
    failed: list[IndexFailure]


@attrs.frozen(kw_only=True)
class IndexUpdated:
    """`agent/indexUpdated`: what an index update changed (failed: path -> reason). Also sent
    when the background embedder caught up: `embedded` chunks got their dense vector (hybrid
    search now uses them), `embeddingFailed` could not be embedded (see `agent/status`); and
    when a document's summaries of tables / long code are final (`summarized`: those
    documents, now `ready` and searchable by the provider's sentences, or by the
    deterministic summaries where it gave none; see `summaries` in `agent/status`)."""

    indexed: list[str]
    removed: list[str]
    failed: dict[str, str]
    embedded: int | None = None
    embedding_failed: int | None = None
    summarized: list[str] | None = None  # documents whose summaries are final (now ready)


# The conversation as the user saw it (stored beside the model's transcript) ----------------


@attrs.frozen(kw_only=True)
class ShownUser:
    """What the user typed (never the context or the instructions agent-ls added for the model)."""

    kind: Literal["user"] = "user"
    text: str


@attrs.frozen(kw_only=True)
class ShownAnswer:
    """Answer text of the model, as it streamed to the user."""

    kind: Literal["answer"] = "answer"
    text: str


@attrs.frozen(kw_only=True)
class ShownTool:
    """A tool the model called, with its final status and what it answered (cut to 4000)."""

    kind: Literal["tool"] = "tool"
    name: str
    args: JsonObject
    status: Literal["in_progress", "completed", "failed"]
    output: str | None = None


@attrs.frozen(kw_only=True)
class FileDiff:
    """A written file's text before (None: created) and after (None: deleted)."""

    path: str  # absolute
    old_text: str | None
    new_text: str | None


@attrs.frozen(kw_only=True)
class ShownFile:
    """A file a plan wrote; `diff` when the front end showed one (ACP)."""

    kind: Literal["file"] = "file"
    path: str
    action: FileActionName
    diff: FileDiff | None = None


@attrs.frozen(kw_only=True)
class ShownPlanEntry:
    path: str
    status: Literal["pending", "completed"]


@attrs.frozen(kw_only=True)
class ShownPlan:
    """A plan and the final status of each of its files."""

    kind: Literal["plan"] = "plan"
    description: str
    entries: list[ShownPlanEntry]


@attrs.frozen(kw_only=True)
class ShownError:
    """An error the user was shown (a rolled-back plan, a refused file, a failed turn)."""

    kind: Literal["error"] = "error"
    message: str


ShownEntry = ShownUser | ShownAnswer | ShownTool | ShownFile | ShownPlan | ShownError


@attrs.frozen(kw_only=True)
class SessionsParams:
    """Params of `agent/sessions`: `delete` removes that stored conversation first; `show`
    names the one whose entry carries its `conversation` (what the user saw)."""

    delete: str | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.instance_of(str))
    )
    # `conversation` of this stored conversation in its entry: what the user saw (a resumed chat)
    show: str | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.instance_of(str))
    )


@attrs.frozen(kw_only=True)
class SessionEntry:
    """One stored conversation of the workspace (`agent/sessions`, `agent-ls sessions`)."""

    id: str
    title: str
    updated: str
    turns: int
    # The stored file cannot be read back: "<file> (<why>)". It is kept as it is; agent/chat
    # with this id fails naming it.
    corrupt: str | None = None
    # The conversation as the user saw it (only in the entry `agent/sessions {show}` names).
    conversation: list[ShownEntry] | None = None


@attrs.frozen(kw_only=True)
class ReviewPlan:
    """A staged plan (review mode), as `agent/chat` returns it in `plan` and the review
    commands return it after each decision."""

    plan_id: str
    state: Literal["pending", "accepted", "rejected", "partial"]
    description: str
    files: list[ReviewFile]
    checkpoint_id: str | None = None
    refused: list[str] | None = None


@attrs.frozen(kw_only=True)
class AcceptParams:
    """`agent.accept [{planId, files?}]`: apply the listed (default: every pending) file."""

    plan_id: str = attrs.field(validator=attrs.validators.instance_of(str))
    files: list[str] | None = None


@attrs.frozen(kw_only=True)
class RejectParams:
    """`agent.reject [{planId, files?, reason?}]`: discard them; the reason goes to the model."""

    plan_id: str = attrs.field(validator=attrs.validators.instance_of(str))
    files: list[str] | None = None
    reason: str | None = None


@attrs.frozen(kw_only=True)
class StagedContentParams:
    """`agent.stagedContent [{planId, path}]`: a staged file's proposed content (for a diff)."""

    plan_id: str = attrs.field(validator=attrs.validators.instance_of(str))
    path: str = attrs.field(validator=attrs.validators.instance_of(str))


@attrs.frozen(kw_only=True)
class MoveParams:
    """`agent.undo [{force?}]` / `agent.redo [{force?}]`: force overwrites files changed since."""

    force: bool = False


@attrs.frozen(kw_only=True)
class ReindexParams:
    """`agent.reindex [{token?}]`: report progress on the client's work-done token."""

    token: int | str | None = None


@attrs.frozen(kw_only=True)
class StagedContent:
    """Result of `agent.stagedContent`: `content` absent when the plan deletes the file."""

    path: str
    op: Literal["create", "update", "delete"]
    state: Literal["pending", "accepted", "rejected"]
    content: str | None = None


# Consent prompts (window/showMessageRequest with the `agentLs` marker) ---------------------


@attrs.frozen(kw_only=True)
class CommandConsent:
    """The model wants to run `command` (a shell line) in `folder` (as shown: `name (path)`)."""

    kind: Literal["command"] = "command"
    command: str
    folder: str


@attrs.frozen(kw_only=True)
class ToolConsent:
    """The model wants to call the tool `tool` of the MCP server `server`; `arguments` as JSON
    text (the model's object, keys sorted)."""

    kind: Literal["mcp_tool"] = "mcp_tool"
    server: str
    tool: str
    arguments: str


@attrs.frozen(kw_only=True)
class ProjectServer:
    """One server of a project's `.mcp.json`: its name and what it runs (the command line, or
    the URL of an HTTP server)."""

    name: str
    runs: str


@attrs.frozen(kw_only=True)
class TrustConsent:
    """A project's `.mcp.json` (`path`) would start these servers: Trust / Deny."""

    kind: Literal["mcp_trust"] = "mcp_trust"
    path: str
    servers: list[ProjectServer]


ConsentPrompt = CommandConsent | ToolConsent | TrustConsent


@attrs.frozen(kw_only=True)
class MessageAction:
    """An action of a message request (LSP `MessageActionItem`)."""

    title: str


@attrs.frozen(kw_only=True)
class ConsentRequestParams:
    """The params of agent-ls' consent requests: LSP `ShowMessageRequestParams` (`type` 2,
    Warning; the `actions` of the kind, in order) plus `agentLs`, what is asked, typed. An
    editor that does not know `agentLs` shows `message` and the actions."""

    type: int
    message: str
    actions: list[MessageAction]
    agent_ls: ConsentPrompt


# The converter ----------------------------------------------------------------------------

_JSON_SCALARS = {str, int, float, bool, type(None)}


def _is_json(cls: Any) -> bool:
    """`JsonValue` / `JsonObject` as typing resolves them (the alias expands on evaluation)."""
    if get_origin(cls) is dict:
        key, value = get_args(cls)
        return key is str and _is_json(value)
    return get_origin(cls) is Union and set(get_args(cls)) >= _JSON_SCALARS


def _structure_json(value: Any, cls: Any) -> Any:
    if get_origin(cls) is dict and not isinstance(value, dict):
        raise TypeError(f"expected a JSON object, got {type(value).__name__}")
    return value


def _strict_str(value: Any, _cls: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _is_wire(cls: Any) -> bool:
    return isinstance(cls, type) and attrs.has(cls) and cls.__module__ == __name__


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _overrides(cls: type) -> dict[str, Any]:
    return {
        a.name: override(rename=_camel(a.name), omit_if_default=a.default is None)
        for a in attrs.fields(cls)
    }


def _unstructure_progress(converter: cattrs.Converter) -> Callable[[ChatProgress], Any]:
    def hook(progress: ChatProgress) -> dict[str, Any]:
        out: dict[str, Any] = {"sessionId": progress.session_id, "kind": progress.event.kind}
        if isinstance(progress.event, TextDelta):
            out["delta"] = progress.event.delta
        else:
            out["data"] = converter.unstructure(progress.event)
        return out

    return hook


def _structure_progress(converter: cattrs.Converter) -> Callable[[Any, Any], ChatProgress]:
    def hook(raw: Any, _cls: Any) -> ChatProgress:
        cls = PROGRESS_TYPES.get(str(raw.get("kind"))) if isinstance(raw, dict) else None
        if cls is None:
            raise ValueError(f"not a progress notification: {raw!r}")
        fields = {"delta": raw.get("delta")} if cls is TextDelta else raw.get("data")
        event = converter.structure(fields, cls)
        return ChatProgress(session_id=_strict_str(raw.get("sessionId"), str), event=event)

    return hook


def _unstructure_request(
    converter: cattrs.Converter,
) -> Callable[[types.ShowMessageRequest], dict[str, Any]]:
    """`window/showMessageRequest` with its params as their own class unstructures them:
    lsprotocol's hook would spell `ConsentRequestParams` as plain `ShowMessageRequestParams`
    and drop its `agentLs`."""

    def hook(request: types.ShowMessageRequest) -> dict[str, Any]:
        params: Any = request.params
        return {
            "id": request.id,
            "params": converter.unstructure(params, unstructure_as=type(params)),
            "method": request.method,
            "jsonrpc": request.jsonrpc,
        }

    return hook


def _tagged(
    converter: cattrs.Converter, types_: Iterable[type], tag: str
) -> Callable[[Any, Any], Any]:
    """Structure one of `types_` chosen by the value of its `tag` field."""
    by_tag = {attrs.fields_dict(cls)[tag].default: cls for cls in types_}

    def hook(raw: Any, _cls: Any) -> Any:
        cls = by_tag.get(raw.get(tag)) if isinstance(raw, dict) else None
        if cls is None:
            raise ValueError(f"unknown {tag}: {raw!r}")
        return converter.structure(raw, cls)

    return hook


def make_converter() -> cattrs.Converter:
    """pygls' converter plus the wire rules of this module (see its docstring)."""
    converter: cattrs.Converter = default_converter()  # type: ignore[no-untyped-call]
    converter.register_structure_hook(str, _strict_str)
    converter.register_unstructure_hook_func(_is_json, lambda value: value)
    converter.register_structure_hook_func(_is_json, _structure_json)
    converter.register_unstructure_hook_factory(
        _is_wire,
        lambda cls: make_dict_unstructure_fn(cls, converter, **_overrides(cls)),
    )
    converter.register_structure_hook_factory(
        _is_wire,
        lambda cls: make_dict_structure_fn(cls, converter, **_overrides(cls)),
    )
    converter.register_unstructure_hook(ChatProgress, _unstructure_progress(converter))
    converter.register_structure_hook(ChatProgress, _structure_progress(converter))
    converter.register_structure_hook_func(
        lambda cls: cls == BlockRecord, _tagged(converter, get_args(BlockRecord), "type")
    )
    converter.register_structure_hook_func(
        lambda cls: cls == ShownEntry, _tagged(converter, get_args(ShownEntry), "kind")
    )
    converter.register_structure_hook_func(
        lambda cls: cls == ConsentPrompt, _tagged(converter, get_args(ConsentPrompt), "kind")
    )
    converter.register_unstructure_hook(types.ShowMessageRequest, _unstructure_request(converter))
    return converter


CONVERTER = make_converter()


def to_wire(value: Any) -> Any:
    """A payload as JSON-ready Python values."""
    return CONVERTER.unstructure(value)


T = TypeVar("T")


def from_wire(raw: Any, cls: type[T]) -> T:
    """JSON values back into a payload type (raises cattrs errors on a bad shape)."""
    return CONVERTER.structure(raw, cls)
