"""The live index of the open workspace: started at `initialized`, kept fresh, re-built on demand.

- `textDocument/didSave` and `workspace/didChangeWatchedFiles` re-index the files named
  (the watchfiles watcher catches the same changes made outside the editor);
- `workspace/executeCommand agent.reindex [{"token"?}]` brings the whole index up to date
  with `$/progress` (a server-created token unless the client passes one) and returns the
  counts `{documents: {pending, chunked, ready, failed}, indexed, removed, failed}`.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from server.features.configuration import settled
from server.index_summaries import allowed, summarizer
from server.live_index import LiveIndex, StoreError, open_live
from server.lsp import AgentLanguageServer, RequestFailed
from server.protocol import (
    AGENT_INDEX_UPDATED,
    CMD_REINDEX,
    IndexFailure,
    IndexUpdated,
    ReindexResult,
)
from server.providers.base import Provider

log = logging.getLogger(__name__)


def register(server: AgentLanguageServer) -> None:
    server.feature(types.TEXT_DOCUMENT_DID_SAVE)(on_did_save)
    server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(on_watched_files)
    server.command(CMD_REINDEX)(reindex)
    server.after_initialized.append(schedule_start)


_STARTING: set[asyncio.Task[None]] = set()


def schedule_start(ls: AgentLanguageServer) -> None:
    """Open the workspace's index and start its first build and watcher (at initialized)."""
    task = asyncio.ensure_future(_start(ls))
    _STARTING.add(task)
    task.add_done_callback(_STARTING.discard)


async def _start(ls: AgentLanguageServer) -> None:
    try:
        await live(ls)
    except RequestFailed as error:
        log.warning("%s", error)


async def index_status(ls: AgentLanguageServer) -> dict[str, Any]:
    """The index part of `agent/status`."""
    try:
        return await (await live(ls)).status()
    except RequestFailed as error:
        return {"state": "unavailable", "error": error.message}


async def live(ls: AgentLanguageServer) -> LiveIndex:
    """The running index of the workspace (opened and started on first use)."""
    root = ls.root()
    if root is None:
        raise RequestFailed("no workspace folder is open: there is nothing to index")
    await settled(ls)
    config, _ = ls.state.config()
    key = (root, config.indexUrl)
    existing = ls.state.indexes.get(key)
    if existing is not None:
        return existing  # type: ignore[no-any-return]
    for old_key in list(ls.state.indexes):  # another folder or indexUrl: stop the old one
        await ls.state.indexes.pop(old_key).close()

    def notify(payload: IndexUpdated) -> None:
        ls.protocol.notify(AGENT_INDEX_UPDATED, payload)

    async def provider() -> Provider:
        chosen = await ls.state.resolved_provider(root)
        if ls.state.resolution is not None:
            allowed(ls.state.resolution[1])
        return chosen

    model = f"{config.provider}:{config.baseUrl}:{config.model}"
    try:
        index = open_live(root, config.indexUrl, notify, summarizer(root, model, provider))
    except StoreError as error:
        raise RequestFailed(f"the index cannot be opened: {error}") from None
    ls.state.indexes[key] = index
    index.start()
    return index


def _relative(ls: AgentLanguageServer, uri: str) -> str | None:
    root = ls.root()
    path = to_fs_path(uri)
    if root is None or not path:
        return None
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


async def _changed(ls: AgentLanguageServer, uris: list[str]) -> None:
    paths = [path for path in (_relative(ls, uri) for uri in uris) if path]
    if not paths:
        return
    try:
        await (await live(ls)).changed(paths)
    except RequestFailed as error:
        log.warning("%s", error)


async def on_did_save(ls: AgentLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    await _changed(ls, [params.text_document.uri])


async def on_watched_files(
    ls: AgentLanguageServer, params: types.DidChangeWatchedFilesParams
) -> None:
    await _changed(ls, [change.uri for change in params.changes])


async def reindex(ls: AgentLanguageServer, *args: Any) -> ReindexResult:
    index = await live(ls)
    options = args[0] if args and isinstance(args[0], dict) else {}
    token = options.get("token") or f"agent-ls-reindex-{uuid.uuid4().hex[:8]}"
    if "token" not in options:
        try:
            await asyncio.wait_for(ls.work_done_progress.create_async(token), 5)
        except Exception as error:  # a client without window/workDoneProgress: no bar
            log.info("no progress token: %s", error)
            token = None
    if token is not None:
        ls.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title="agent-ls: indexing", percentage=0)
        )

    def progress(done: int, total: int, path: str) -> None:
        if token is not None and (done == total or done % 25 == 0):
            percentage = int(done * 100 / total) if total else 100
            report = types.WorkDoneProgressReport(message=path, percentage=percentage)
            ls.work_done_progress.report(token, report)

    await index.ready()
    report = await index.reindex(progress)
    status = await index.status()
    if token is not None:
        message = f"{status['documents']['ready']} documents ready"
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
    return ReindexResult(
        documents=dict(status["documents"]),
        chunks=int(status["chunks"]),
        indexed=len(report.indexed),
        unchanged=len(report.unchanged),
        removed=len(report.removed),
        failed=[IndexFailure(path=path, reason=reason) for path, reason in report.failed.items()],
    )
