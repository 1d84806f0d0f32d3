"""End-to-end fixtures: the real server over stdio (pytest-lsp) and the fake LLM on loopback."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from server.protocol import AGENT_CHAT, AGENT_CHAT_PROGRESS
from tests.e2e.conversations import seed_project
from tests.fakellm import FakeLLM

EDITORS = ["visual-studio-code", "neovim"]


@pytest.fixture
def fakellm() -> Iterator[FakeLLM]:
    with FakeLLM({"replies": ["Hello from the fake LLM."]}) as llm:
        yield llm


class ChatRecorder:
    """Collects agent/chatProgress notifications; tests wait on them, never sleep."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.changed = asyncio.Condition()

    async def add(self, params: Any) -> None:
        async with self.changed:
            self.items.append(as_dict(params))
            self.changed.notify_all()

    async def wait_for(self, predicate: Callable[[list[dict[str, Any]]], bool]) -> None:
        async with self.changed:
            await asyncio.wait_for(self.changed.wait_for(lambda: predicate(self.items)), 20)

    def texts(self, session_id: str | None = None) -> list[str]:
        return [
            p["delta"]
            for p in self.items
            if p["kind"] == "text" and (session_id is None or p["sessionId"] == session_id)
        ]


class EditorModel:
    """What a real editor does with workspace/applyEdit, for the documents it has open.

    It records every request, applies whole-document TextDocumentEdits to its buffers and
    reports them back with didChange (as editors do); DeleteFile closes the buffer. It never
    writes the disk: saving is not something applyEdit asks of an editor.
    """

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.buffers: dict[str, tuple[int, str]] = {}
        self.edits: list[types.ApplyWorkspaceEditParams] = []
        self.reject: set[str] = set()
        self.defer_did_change = False  # Neovim debounces: didChange after the applyEdit answer

    def open(self, path: Path, text: str | None = None) -> str:
        uri = path.as_uri()
        text = path.read_text() if text is None else text
        self.buffers[uri] = (1, text)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="plaintext", version=1, text=text)
            )
        )
        return uri

    def on_apply_edit(
        self, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        self.edits.append(params)
        for change in params.edit.document_changes or []:
            uri = (
                change.text_document.uri
                if isinstance(change, types.TextDocumentEdit)
                else change.uri
            )
            if uri in self.reject:
                return types.ApplyWorkspaceEditResult(
                    applied=False, failure_reason=f"{uri} is locked"
                )
        for change in params.edit.document_changes or []:
            if isinstance(change, types.TextDocumentEdit):
                self._edit(change)
            elif isinstance(change, types.DeleteFile):
                self.buffers.pop(change.uri, None)
        return types.ApplyWorkspaceEditResult(applied=True)

    def _edit(self, change: types.TextDocumentEdit) -> None:
        uri = change.text_document.uri
        version, _ = self.buffers[uri]
        assert change.text_document.version in (None, version), "stale version in the edit"
        (edit,) = change.edits
        assert edit.range.start == types.Position(0, 0), "agent-ls edits whole documents"
        self.buffers[uri] = (version + 1, edit.new_text)
        notification = types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=edit.new_text)],
        )
        if self.defer_did_change:
            loop = asyncio.get_running_loop()
            loop.call_later(0.3, self.client.text_document_did_change, notification)
        else:
            self.client.text_document_did_change(notification)


def as_dict(value: Any) -> Any:
    """Notification params of custom methods, as plain JSON values."""
    if hasattr(value, "_asdict"):
        value = value._asdict()
    if isinstance(value, dict):
        return {k: as_dict(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_dict(v) for v in value]
    return value


def settings_for(llm: FakeLLM) -> dict[str, Any]:
    return {"baseUrl": llm.base_url_openai, "model": "fake", "retryBaseDelay": 0.05}


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "server"]),
    params=EDITORS,
)
async def client(
    lsp_client: LanguageClient, request: pytest.FixtureRequest, fakellm: FakeLLM, tmp_path: Path
):
    recorder = ChatRecorder()
    lsp_client.chat = recorder  # type: ignore[attr-defined]

    async def on_chat_progress(params: Any) -> None:
        await recorder.add(params)

    lsp_client.feature(AGENT_CHAT_PROGRESS)(on_chat_progress)
    editor = EditorModel(lsp_client)
    lsp_client.editor = editor  # type: ignore[attr-defined]

    def on_apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        return editor.on_apply_edit(params)

    lsp_client.feature(types.WORKSPACE_APPLY_EDIT)(on_apply_edit)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    lsp_client.workspace_path = workspace  # type: ignore[attr-defined]
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(request.param),
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
            initialization_options={"agentLs": settings_for(fakellm)},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def chat(client: LanguageClient, message: str, **params: Any) -> dict[str, Any]:
    """Send agent/chat and return the result as a dict."""
    result = await client.protocol.send_request_async(AGENT_CHAT, {"message": message, **params})
    return as_dict(result)


def start_chat(client: LanguageClient, message: str, msg_id: str) -> asyncio.Future[Any]:
    """Send agent/chat with a known request id, so the test can cancel it."""
    return asyncio.ensure_future(
        client.protocol.send_request_async(AGENT_CHAT, {"message": message}, msg_id=msg_id)
    )


def cancel(client: LanguageClient, msg_id: str) -> None:
    """What an editor does when the user presses Stop: $/cancelRequest."""
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))


async def command(client: LanguageClient, name: str, *arguments: Any) -> Any:
    """workspace/executeCommand, the result as plain JSON values."""
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=list(arguments))
    )
    return as_dict(result)


@pytest.fixture
def review_project(client: LanguageClient) -> Path:
    """The seeded project, with review mode on (plans are staged, not applied)."""
    root: Path = client.workspace_path  # type: ignore[attr-defined]
    seed_project(root)
    client.set_configuration({"review": "on"}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    return root
