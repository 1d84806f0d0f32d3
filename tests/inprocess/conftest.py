"""The middle layer: the agent loop, plans and the editor applier driven in-process.

Beside the unit tests (one function) and the end-to-end suite (real processes, a real LSP
connection, the fake LLM over HTTP), these tests run a whole turn in the test's own event
loop, in seconds: the real `run_turn`, real workspace confinement, real checkpoint store on
a temp folder, the real `EditorApplier`. Two objects stand in for the far ends of the wire:
- `ScriptedProvider`, a `Provider` implementation that streams scripted replies chunk by
  chunk (what the fake LLM does over HTTP) and records what the model was sent;
- `BufferEditor`, the editor side of `server.editor.Editor`: open buffers kept in a pygls
  `Workspace`, `workspace/applyEdit` applied to them (version-checked) or refused.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.workspace import Workspace

from actions.tools import Tool
from server.config import Config
from server.editor import EditorApplier
from server.protocol import ProgressEvent
from server.providers.base import ChatMessage, NativeToolCall, ProviderError, StreamChunk
from server.turns.loop import run_turn
from server.turns.turn import Agent, ChatSession, TurnOutcome
from server.workspace import FolderContext, build_agent, open_folder


@dataclass
class Reply:
    """One scripted model reply: streamed `chunk` characters at a time."""

    text: str = ""
    chunk: int = 7
    finish: str = "stop"
    tool_calls: tuple[NativeToolCall, ...] = ()
    hold_after: int | None = None  # stop streaming after this many chunks until released
    release: asyncio.Event = field(default_factory=asyncio.Event)

    def chunks(self) -> list[StreamChunk]:
        pieces = [self.text[i : i + self.chunk] for i in range(0, len(self.text), self.chunk)]
        return [StreamChunk(text=p) for p in pieces]


class ScriptedProvider:
    """A Provider that answers each request with the next scripted reply."""

    name = "scripted"

    def __init__(self, replies: Sequence[Reply | str]) -> None:
        self.replies = [r if isinstance(r, Reply) else Reply(r) for r in replies]
        self.received: list[list[ChatMessage]] = []
        self.holding = asyncio.Event()  # set while a reply is held (hold_after)

    async def stream_chat(
        self, messages: list[ChatMessage], *, tools: Sequence[Tool] | None = None
    ) -> AsyncIterator[StreamChunk]:
        self.received.append(list(messages))
        if not self.replies:
            raise ProviderError(self.name, None, "the script has no more replies", "add one")
        reply = self.replies.pop(0)
        for index, chunk in enumerate(reply.chunks()):
            if index == reply.hold_after:
                self.holding.set()
                await reply.release.wait()
            yield chunk
        yield StreamChunk(finish_reason=reply.finish, tool_calls=reply.tool_calls)

    def last_user_message(self) -> str:
        return [m.content for m in self.received[-1] if m.role in ("user", "tool")][-1]


class BufferEditor:
    """The editor's side: open buffers, applyEdit applied to them (or refused)."""

    position_encoding = "utf-16"

    def __init__(self, root: Path) -> None:
        self.workspace = Workspace(root.as_uri())
        self.can_apply_edit = True
        self.refuse: str | None = None  # a reason: every applyEdit is answered "not applied"
        self.document_changed = asyncio.Condition()
        self.edits: list[types.WorkspaceEdit] = []
        self.errors: list[str] = []  # what window/showMessage would show

    def open(self, path: Path, text: str | None = None) -> str:
        """Open `path` in a buffer (its disk content unless `text`: unsaved changes)."""
        uri = path.as_uri()
        source = path.read_text() if text is None else text
        self.workspace.put_text_document(types.TextDocumentItem(uri, "plaintext", 1, source))
        return uri

    def buffer(self, path: Path) -> str | None:
        document = self.workspace.text_documents.get(path.as_uri())
        return None if document is None else document.source

    def show_error(self, message: str) -> None:
        self.errors.append(message)

    def open_document(self, uri: str) -> tuple[int, str] | None:
        document = self.workspace.text_documents.get(uri)
        return None if document is None else (document.version or 0, document.source)

    async def apply_edit(self, edit: types.WorkspaceEdit) -> types.ApplyWorkspaceEditResult:
        self.edits.append(edit)
        if self.refuse is not None:
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason=self.refuse)
        for change in edit.document_changes or []:
            if isinstance(change, types.DeleteFile):
                self.workspace.remove_text_document(change.uri)
            elif isinstance(change, types.TextDocumentEdit):
                document = self.workspace.get_text_document(change.text_document.uri)
                if document.version != change.text_document.version:
                    return types.ApplyWorkspaceEditResult(applied=False, failure_reason="stale")
                for text_edit in change.edits:
                    self.workspace.update_text_document(
                        types.VersionedTextDocumentIdentifier(
                            uri=document.uri, version=document.version + 1
                        ),
                        types.TextDocumentContentChangePartial(
                            range=text_edit.range, text=text_edit.new_text
                        ),
                    )
        async with self.document_changed:
            self.document_changed.notify_all()
        return types.ApplyWorkspaceEditResult(applied=True)


class Recorder:
    """A ProgressSink keeping every event."""

    def __init__(self) -> None:
        self.events: list[ProgressEvent] = []
        self.changed = asyncio.Event()

    def emit(self, event: ProgressEvent) -> None:
        self.events.append(event)
        self.changed.set()

    def of(self, cls: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, cls)]

    async def wait_for(self, cls: type[Any]) -> Any:
        while not self.of(cls):
            self.changed.clear()
            await self.changed.wait()
        return self.of(cls)[0]


def doc(**document: Any) -> str:
    return json.dumps(document)


def tool(name: str, **args: Any) -> str:
    return doc(action="tool_call", tool_call={"function_name": name, "args": args})


def answer(text: str) -> str:
    return doc(action="text_response", text_response=text)


@dataclass
class Harness:
    """One folder, its context, an editor and a sink; `turn` runs one chat turn."""

    root: Path
    folder: FolderContext
    editor: BufferEditor
    sink: Recorder = field(default_factory=Recorder)
    session: ChatSession = field(default_factory=lambda: ChatSession("t1"))
    config: Config = field(default_factory=Config)

    def agent(self, provider: ScriptedProvider) -> Agent:
        applier = EditorApplier(self.editor, self.root)
        return build_agent(self.config, provider, self.folder, applier)

    async def run(self, provider: ScriptedProvider, message: str = "go") -> TurnOutcome:
        return await run_turn(self.agent(provider), self.session, message, None, self.sink)

    async def turn(
        self, replies: Sequence[Reply | str], message: str = "go"
    ) -> tuple[ScriptedProvider, TurnOutcome]:
        provider = ScriptedProvider(replies)
        return provider, await self.run(provider, message)


@pytest.fixture
async def harness(tmp_path: Path) -> Harness:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('v1')\n")
    (root / "old.txt").write_text("obsolete\n")
    folder = await asyncio.to_thread(open_folder, root)
    return Harness(root, folder, BufferEditor(root))
