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

import attrs
from lsprotocol import types
from pygls.uris import to_fs_path

from actions.index.model_summary import ModelSummarizer
from actions.roots import folder_names
from server.config import Config, blocking_problem
from server.features.configuration import settled
from server.index_summaries import SUMMARIES_OFF, NoSummaryProvider, allowed, summarizer
from server.live_index import LiveIndex, StoreError, open_live
from server.lsp import AgentLanguageServer, RequestFailed
from server.protocol import (
    AGENT_INDEX_UPDATED,
    CMD_REINDEX,
    IndexFailure,
    IndexUpdated,
    ReindexParams,
    ReindexResult,
)
from server.providers.base import Provider

log = logging.getLogger(__name__)
INDEX_OFF = (
    "the workspace index is off (setting agentLs.index = false, or AGENT_LS_INDEX=0): "
    "search_files still finds text"
)
REPORT_EVERY = 25  # files between two progress reports


class WorkDone:
    """A `$/progress` bar: begin, a report every `REPORT_EVERY` files with the counts, end."""

    def __init__(self, ls: AgentLanguageServer, token: int | str) -> None:
        self.ls = ls
        self.token = token

    @classmethod
    async def start(
        cls,
        ls: AgentLanguageServer,
        title: str,
        *,
        token: int | str | None = None,
        server_token: bool,
    ) -> WorkDone | None:
        """A bar on the client's `token`, or (`server_token`) on one the server creates
        when the client supports `window/workDoneProgress`; None without either."""
        if token is None:
            if not server_token or not ls.state.client.work_done_progress:
                return None
            token = f"agent-ls-index-{uuid.uuid4().hex[:8]}"
            try:
                await asyncio.wait_for(ls.work_done_progress.create_async(token), 5)
            except Exception as error:  # the client refused or did not answer: no bar
                log.info("no progress token: %s", error)
                return None
        begin = types.WorkDoneProgressBegin(title=title, message="listing files", percentage=0)
        ls.work_done_progress.begin(token, begin)
        return cls(ls, token)

    def report(self, done: int, total: int, path: str) -> None:
        if done == total or done % REPORT_EVERY == 0:
            percentage = int(done * 100 / total) if total else 100
            message = f"{done}/{total} files ({path})"
            report = types.WorkDoneProgressReport(message=message, percentage=percentage)
            self.ls.work_done_progress.report(self.token, report)

    def end(self, message: str) -> None:
        self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))


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
    await settled(ls)
    if not ls.state.config()[0].index:
        return  # index: false — nothing is opened, no file is created
    try:
        await lives(ls)
    except RequestFailed as error:
        log.warning("%s", error)


async def index_status(ls: AgentLanguageServer, root: Path | None = None) -> dict[str, Any]:
    """The index part of `agent/status` (of the folder `root`, default the first one)."""
    await settled(ls)
    if not ls.state.config()[0].index:
        return {"state": "off", "hint": INDEX_OFF}
    try:
        report = await (await live(ls, root)).status()
    except RequestFailed as error:
        return {"state": "unavailable", "error": error.message}
    if report["summaries"].get("source") == "provider" and ls.state.resolution is not None:
        try:  # the provider is known already: say now whether it will be asked
            allowed(ls.state.resolution[1])
        except NoSummaryProvider as error:
            report["summaries"] = {"source": "fallback", "reason": str(error)}
    return report


async def live(ls: AgentLanguageServer, root: Path | None = None) -> LiveIndex:
    """The running index of the folder `root` (default: the first workspace folder), opened
    and started on first use. Every folder of a multi-root workspace has its own."""
    root = root or ls.root()
    if root is None:
        raise RequestFailed("no workspace folder is open: there is nothing to index")
    await settled(ls)
    config, problems = ls.state.config()
    folder = ls.state.folder(root)
    if not config.index:
        await folder.close_index()  # turned off meanwhile
        raise RequestFailed(INDEX_OFF)
    problem = blocking_problem(problems, frozenset({"indexUrl"}))
    if problem is not None:  # a malformed indexUrl: no other index stands in for it
        raise RequestFailed(problem.message())
    if folder.index is not None and folder.index_url == config.indexUrl:
        _follow_summaries(ls, root, folder.index, config)
        return folder.index
    await folder.close_index()  # opened for another indexUrl: stop it
    roots = ls.roots()
    for other in ls.state.folders.opened():  # a folder gone: stop its index
        if other.root not in roots:
            await other.close_index()

    def notify(payload: IndexUpdated) -> None:
        name = ls.folder_name(root)
        if name:  # paths qualified by folder name, as the model sees them
            payload = attrs.evolve(
                payload,
                indexed=[f"{name}/{path}" for path in payload.indexed],
                removed=[f"{name}/{path}" for path in payload.removed],
                failed={f"{name}/{path}": why for path, why in payload.failed.items()},
                summarized=[f"{name}/{path}" for path in payload.summarized or []] or None,
            )
        ls.protocol.notify(AGENT_INDEX_UPDATED, payload)

    async def start_progress(title: str) -> WorkDone | None:
        return await WorkDone.start(ls, title, server_token=True)

    try:
        index = open_live(
            root,
            config.indexUrl,
            notify,
            *_summaries(ls, root, config),
            start_progress=start_progress,
            pause=ls.state.foreground.pause,
        )
    except StoreError as error:
        raise RequestFailed(f"the index cannot be opened: {error}") from None
    folder.use_index(index, config.indexUrl)
    index.start()
    return index


def _summaries(
    ls: AgentLanguageServer, root: Path, config: Config
) -> tuple[ModelSummarizer | None, str]:
    """The summarizer asking the active provider, or None and why (``indexSummaries`` off)."""
    if not config.indexSummaries:
        return None, SUMMARIES_OFF

    async def provider() -> Provider:
        chosen = await ls.state.resolved_provider(root)
        if ls.state.resolution is not None:
            allowed(ls.state.resolution[1])
        return chosen

    return summarizer(root, _model(config), provider), ""


def _model(config: Config) -> str:
    """Which model writes the summaries (part of their cache key)."""
    return f"{config.provider}:{config.baseUrl}:{config.model}"


def _follow_summaries(ls: AgentLanguageServer, root: Path, live: LiveIndex, config: Config) -> None:
    """``indexSummaries`` or the provider changed since the index was opened: from now on,
    the summaries follow the settings."""
    index = live.index
    model = getattr(index.summarizer, "model", None)
    if config.indexSummaries == (index.summarizer is not None) and model in (None, _model(config)):
        return
    old = index.summarizer
    index.summarizer, index.summaries_off = _summaries(ls, root, config)
    close = getattr(old, "close", None)
    if close is not None:
        close()


async def lives(ls: AgentLanguageServer) -> list[tuple[str, LiveIndex]]:
    """The index of every workspace folder, by folder name ("" for a single folder); a folder
    whose index cannot be opened is left out (logged) unless it is the only one."""
    roots = ls.roots()
    if not roots:
        raise RequestFailed("no workspace folder is open: there is nothing to index")
    names = folder_names(roots) if len(roots) > 1 else [""]
    found: list[tuple[str, LiveIndex]] = []
    for name, root in zip(names, roots, strict=True):
        try:
            found.append((name, await live(ls, root)))
        except RequestFailed as error:
            if len(roots) < 2:
                raise
            log.warning("folder %s: %s", name, error)
    if not found:
        raise RequestFailed("no workspace folder's index can be opened")
    return found


def _relative(ls: AgentLanguageServer, uri: str) -> tuple[Path, str] | None:
    """The workspace folder holding `uri` (the innermost one) and the path inside it."""
    path = to_fs_path(uri)
    root = ls.folder_of(Path(path)) if path else None
    if root is None or not path:
        return None
    return root, Path(path).resolve().relative_to(root.resolve()).as_posix()


async def _changed(ls: AgentLanguageServer, uris: list[str]) -> None:
    if not ls.state.config()[0].index:
        return
    by_root: dict[Path, list[str]] = {}
    for found in (_relative(ls, uri) for uri in uris):
        if found is not None and found[1] != ".":
            by_root.setdefault(found[0], []).append(found[1])
    for root, paths in by_root.items():
        try:
            await (await live(ls, root)).changed(paths)
        except RequestFailed as error:
            log.warning("%s", error)


async def on_did_save(ls: AgentLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    await _changed(ls, [params.text_document.uri])


async def on_watched_files(
    ls: AgentLanguageServer, params: types.DidChangeWatchedFilesParams
) -> None:
    await _changed(ls, [change.uri for change in params.changes])


async def reindex(ls: AgentLanguageServer, *args: Any) -> ReindexResult:
    """Bring every folder's index up to date; the counts of all folders together (paths
    qualified by folder name in a multi-root workspace)."""
    options = ls.command_argument(CMD_REINDEX, args, ReindexParams)
    indexes = await lives(ls)
    bar = await WorkDone.start(ls, "agent-ls: indexing", token=options.token, server_token=True)
    progress = bar.report if bar is not None else None
    documents: dict[str, int] = {}
    chunks = indexed = unchanged = removed = 0
    failed: list[IndexFailure] = []
    for name, index in indexes:
        await index.ready()
        report = await index.reindex(progress)
        status = await index.status()
        for state, count in status["documents"].items():
            documents[state] = documents.get(state, 0) + int(count)
        chunks += int(status["chunks"])
        indexed, unchanged = indexed + len(report.indexed), unchanged + len(report.unchanged)
        removed += len(report.removed)
        failed += [
            IndexFailure(path=f"{name}/{path}" if name else path, reason=reason)
            for path, reason in report.failed.items()
        ]
    if bar is not None:
        bar.end(f"{documents.get('ready', 0)} documents ready")
    return ReindexResult(
        documents=documents,
        chunks=chunks,
        indexed=indexed,
        unchanged=unchanged,
        removed=removed,
        failed=failed,
    )
