"""`agent-ls index --workspace DIR [--json]`: build or update the workspace's retrieval index.

Incremental: unchanged files are not read again, deleted ones leave the index. A progress
bar goes to stderr (when it is a terminal). Prints the counts of documents by status and
every failed document with its reason (`--json`: `{location, documents: {pending, chunked,
ready, failed}, chunks, indexed, unchanged, removed, failures: [{path, reason}], embedded,
embeddings: {enabled, model, none, pending, ready, failed} | {enabled: false, reason, hint}}`).
With the `embeddings` extra the chunks still without a vector are embedded before the command
returns (only new or changed text: a vector is kept while its chunk's text is unchanged);
`--no-embed` leaves them pending (BM25 finds them; the server embeds them in the background).
The vector graph of a large SQLite index is not waited for: a niced child process builds it
after the command returns (searches are exact meanwhile; `embeddings.search` says `pending` or
`building` with its progress); `--wait-graph` waits for it.
Exit status 0 when the index was updated (failed documents included), 2 when it cannot be
(server/commands/errors.py).
When the environment configures a provider (AGENT_LS_PROVIDER, AGENT_LS_BASE_URL, ...), it
writes the summaries of tables and long code blocks (server/index_summaries.py), unless
`--no-summaries` or `AGENT_LS_INDEX_SUMMARIES=0` (cloud cost): then the deterministic ones.
`--json` adds `summaries: {source: provider, model, asked, failed, ...} | {source: fallback,
reason}`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from actions.index import StoreError, UpdateReport, WorkspaceIndex, open_index
from actions.index.embeddings import dense_status
from actions.index.freshness import refresh
from actions.index.graph_process import spawn_graph_build
from actions.index.sqlite_store import SqliteStore
from actions.index.store import default_index_dir
from actions.paths import Workspace
from actions.private import default_store_dir
from server.commands.errors import INTERRUPTED, USAGE, check_workspace, complain, usage_error
from server.config import blocking_problem, from_environment, merge
from server.index_summaries import cli_summarizer
from server.wording import setting_message

BAR_WIDTH = 30
INDEX_OFF_CLI = "the workspace index is off (AGENT_LS_INDEX=0): unset it to index and search"


def register(sub: Any) -> None:
    parser = sub.add_parser("index", help="build or update the workspace's search index")
    parser.add_argument("--workspace", default=".", help="workspace folder (default: .)")
    parser.add_argument("--index-url", dest="indexUrl", help="index store URL (postgresql://...)")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument(
        "--no-embed", action="store_true", help="do not wait for dense vectors (left pending)"
    )
    parser.add_argument(
        "--wait-graph",
        action="store_true",
        help="wait for the vector graph (else built by a background process; searches are "
        "exact meanwhile)",
    )
    add_summaries_flag(parser)
    parser.set_defaults(func=run)


def add_summaries_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-summaries",
        action="store_true",
        help="never ask the provider to summarize tables and long code (deterministic "
        "summaries; also AGENT_LS_INDEX_SUMMARIES=0)",
    )


def open_workspace_index(
    args: argparse.Namespace, *, query_only: bool = False
) -> WorkspaceIndex | None:
    """The index of --workspace (problems printed to stderr); None when it cannot be opened.
    ``query_only``: the model embeds a query, not chunks (it loads faster, unoptimized)."""
    root = Path(args.workspace)
    if not check_workspace(root):
        return None
    root = root.resolve()
    config, problems = from_environment()
    if not config.index:
        complain(INDEX_OFF_CLI)
        return None
    flag = getattr(args, "indexUrl", None)
    config, more = merge(config, {"indexUrl": flag} if flag else None, "command line")
    problem = blocking_problem(problems + more, frozenset({"indexUrl"}))
    if problem is not None:  # a malformed indexUrl: its problem is the one line printed
        complain(setting_message(problem))
        return None
    url = config.indexUrl
    workspace = Workspace(root, extra_denied=[default_store_dir(root)])
    summarizer, why = cli_summarizer(root, config, off=getattr(args, "no_summaries", False))
    try:
        index = open_index(workspace, url=url, summarizer=summarizer, optimize_model=not query_only)
    except StoreError as error:
        complain(str(error))
        return None
    if why:
        index.summaries_off = why
    return index


def index_report(root: Path, url: str, enabled: bool = True) -> dict[str, Any]:
    """The index part of `agent-ls doctor`: state, counts and failures, never building it
    (`enabled` False: the index is turned off)."""
    if not enabled:
        return {"state": "off", "hint": INDEX_OFF_CLI}
    if not url and not (default_index_dir(root) / "index.sqlite3").exists():
        dense = dense_status()
        embeddings = {"enabled": dense.enabled, "model": dense.model or None}
        if not dense.enabled:
            embeddings = {"enabled": False, "reason": dense.reason, "hint": dense.hint}
        hint = f"run: agent-ls index --workspace {root}"
        return {"state": "not built", "hint": hint, "embeddings": embeddings}
    try:
        index = open_index(Workspace(root), url=url)
    except StoreError as error:
        return {"state": "unavailable", "error": str(error)}
    try:
        report = asyncio.run(index.status()).to_json()
    finally:
        index.close()
    report["state"] = "ready" if not report["documents"]["pending"] else "incomplete"
    return report


def render_index(report: dict[str, Any]) -> str:
    """A few lines for a terminal: the index, dense search, who writes the summaries."""
    if "documents" not in report:
        detail = report.get("error") or report.get("hint", "")
        lines = [f"index:     {report['state']} ({detail})"]
        if "embeddings" in report:
            lines.append(render_dense(report["embeddings"]))
    else:
        counts = ", ".join(f"{n} {name}" for name, n in report["documents"].items() if n)
        where = f"{report['chunks']} chunks ({report['location']})"
        lines = [
            f"index:     {counts or 'empty'}; {where}",
            render_dense(report.get("embeddings") or {}),
        ]
    if report.get("summaries"):
        lines.append(render_summaries(report["summaries"]))
    return "\n".join(lines)


def render_summaries(summaries: dict[str, Any]) -> str:
    """Whether tables and long code are summarized by the provider or by the fallback."""
    if summaries.get("source") != "provider":
        return f"summaries: deterministic fallback ({summaries.get('reason') or 'no provider'})"
    line = f"summaries: by the provider {summaries.get('model') or ''}".rstrip()
    if summaries.get("asked") is not None:
        line += f" ({summaries['asked']} asked, {summaries.get('failed') or 0} failed"
        line += ", paused after failures)" if summaries.get("paused") else ")"
    if summaries.get("error"):
        line += f"; last error: {summaries['error']}"
    return line


def render_dense(dense: dict[str, Any]) -> str:
    """Whether search is hybrid, and how far the background embedding is; or how to turn on."""
    if not dense.get("enabled"):
        reason = dense.get("reason") or "off"
        hint = f"; to turn it on: {dense['hint']}" if dense.get("hint") else ""
        return f"dense:     off, BM25 only ({reason}{hint})"
    names = {"ready": "ready", "pending": "pending", "failed": "failed", "none": "not queued yet"}
    counts = ", ".join(f"{dense[key]} {name}" for key, name in names.items() if dense.get(key))
    line = f"dense:     on, hybrid BM25 + {dense.get('model')} ({counts or 'no chunk yet'})"
    return line + render_vector_search(dense.get("search") or {})


def render_vector_search(search: dict[str, Any]) -> str:
    """How the nearest chunks are found: a graph, exact, or a graph still being built."""
    kind = search.get("kind")
    if kind == "hnsw":
        text = f"; nearest chunks: HNSW graph of {search.get('vectors', 0)} vectors"
    elif kind == "exact":
        text = "; nearest chunks: exact"
        if search.get("building"):
            progress = search.get("progress") or {}
            done = f" ({progress['added']}/{progress['total']})" if progress.get("total") else ""
            text += f", graph building{done}"
        elif search.get("pending"):
            text += ", graph pending"
    elif kind == "pgvector":
        text = "; nearest chunks: pgvector HNSW"
    else:
        return ""
    return text + (f" (last graph build failed: {search['error']})" if search.get("error") else "")


class ProgressBar:
    """`[#####.....] done/total path` redrawn on one stderr line (terminals only)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.enabled = stream.isatty()

    def __call__(self, done: int, total: int, path: str) -> None:
        if not self.enabled:
            return
        filled = BAR_WIDTH * done // total if total else BAR_WIDTH
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        self.stream.write(f"\r\x1b[K[{bar}] {done}/{total} {path[-60:]}")
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


async def summary(index: WorkspaceIndex, report: UpdateReport) -> dict[str, Any]:
    status = await index.status()
    documents = await asyncio.to_thread(index.store.documents)
    failures = sorted(
        (
            {"path": doc.path, "reason": doc.reason}
            for doc in documents.values()
            if doc.status == "failed"
        ),
        key=lambda failure: failure["path"],
    )
    return {
        "location": status.location,
        "documents": status.counts,
        "chunks": status.chunks,
        "indexed": len(report.indexed),
        "unchanged": len(report.unchanged),
        "removed": len(report.removed),
        "failures": failures,
        "embedded": index.embeddings.total.embedded if index.embeddings else 0,
        "embeddings": status.embeddings,
        "summaries": status.summaries,
    }


def render(result: dict[str, Any]) -> str:
    counts = result["documents"]
    lines = [
        f"index:     {result['location']}",
        "documents: " + ", ".join(f"{counts[name]} {name}" for name in counts),
        f"chunks:    {result['chunks']}",
        f"this run:  {result['indexed']} indexed, {result['unchanged']} unchanged, "
        f"{result['removed']} removed",
    ]
    lines += [f"failed:    {f['path']}: {f['reason']}" for f in result["failures"]]
    lines.append(render_dense(result["embeddings"]))
    lines.append(render_summaries(result["summaries"]))
    if result["embedded"]:
        lines.append(f"embedded:  {result['embedded']} chunks this run")
    return "\n".join(lines)


def graph_after_build(store: SqliteStore, wait: bool) -> None:
    """The vector graph, when one is due: built here (``wait``), else by a niced child
    process that outlives this one (the next searches are exact until it is saved)."""
    if wait:
        store.wait_for_vector_index()
        return
    store.no_graph_builds()  # a build begun here would die with the process
    if store.graph_due():
        spawn_graph_build(store.path)


def run(args: argparse.Namespace) -> int:
    index = open_workspace_index(args)
    if index is None:
        return USAGE

    async def build() -> dict[str, Any]:
        bar = ProgressBar(sys.stderr)
        index.embed_in_background = False
        report = await refresh(index, force=True, progress=bar)
        assert report is not None  # forced: always walked
        if index.embeddings is not None and not args.no_embed:
            await index.embeddings.drain(lambda done, total: bar(done, total, "embedding"))
        if index.embeddings is not None and isinstance(index.store, SqliteStore):
            await asyncio.to_thread(graph_after_build, index.store, args.wait_graph)
        return await summary(index, report)

    try:
        result = asyncio.run(build())
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        complain("interrupted (what was indexed and embedded is kept)")
        return INTERRUPTED
    except StoreError as error:
        return usage_error(str(error))
    finally:
        index.close()
    print(json.dumps(result, ensure_ascii=False) if args.json else render(result))
    return 0
