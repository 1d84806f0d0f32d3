"""`agent-ls search --workspace DIR [--k N] [--json] "query"`: query the retrieval index.

The index is brought up to date first when it is stale (a file indexed since changed or went,
a folder of indexed files gained or lost one, no walk recorded: actions/index/freshness.py)
or with `--update`; a fresh index is searched at once, without walking the workspace. The
update is incremental: only changed files are re-chunked; new chunks are found by BM25 at
once, their vectors are left to `agent-ls index` or the server.
Hybrid ranking (BM25 + dense vectors) when the `embeddings` extra is installed and
`AGENT_LS_EMBEDDINGS` is not `0`.
`--json` prints a JSON array of `{path, startLine, endLine, type, headings, content, summary,
score}`, best first, where `content` is the original element (a whole table, code block...).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from actions.index import Hit, StoreError
from actions.index.freshness import refresh
from server.commands.errors import usage_error
from server.commands.index import add_summaries_flag, open_workspace_index

PREVIEW_LINES = 12


def register(sub: Any) -> None:
    parser = sub.add_parser("search", help="search the workspace's index")
    parser.add_argument("query", help="what to look for")
    parser.add_argument("--workspace", default=".", help="workspace folder (default: .)")
    parser.add_argument(
        "--k", type=at_least_one, default=8, metavar="N", help="number of results (default 8)"
    )
    parser.add_argument("--index-url", dest="indexUrl", help="index store URL (postgresql://...)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--update",
        action="store_true",
        help="walk the workspace for changes first even when the index looks fresh",
    )
    add_summaries_flag(parser)
    parser.set_defaults(func=run)


def at_least_one(text: str) -> int:
    """--k: a whole number >= 1 (argparse reports anything else as a usage error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def render(hits: list[Hit]) -> str:
    if not hits:
        return "no match"
    blocks = []
    for rank, hit in enumerate(hits, 1):
        chunk = hit.chunk
        heading = f" — {' > '.join(chunk.headings)}" if chunk.headings else ""
        where = f" ({chunk.pages})" if chunk.pages else f":{chunk.start_line}-{chunk.end_line}"
        lines = [f"{rank}. {chunk.document}{where} [{chunk.type}]{heading} (score {hit.score:.2f})"]
        if chunk.summary:
            lines.append(f"   summary: {chunk.summary}")
        body = chunk.content.splitlines()
        lines += ["   " + line for line in body[:PREVIEW_LINES]]
        if len(body) > PREVIEW_LINES:
            lines.append(f"   … {len(body) - PREVIEW_LINES} more lines")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def run(args: argparse.Namespace) -> int:
    if not args.query.strip():
        return usage_error("the query is empty: say what to look for")
    index = open_workspace_index(args, query_only=True)
    if index is None:
        return 2
    no_builds = getattr(index.store, "no_graph_builds", None)
    if no_builds is not None:  # SQLite: a graph build begun here would die with the process
        no_builds()

    async def query() -> list[Hit]:
        index.embed_in_background = False  # a one-shot search never waits for the model
        await refresh(index, force=args.update)
        return await index.search(args.query, args.k)

    try:
        hits = asyncio.run(query())
    except StoreError as error:
        return usage_error(str(error))
    finally:
        index.close()
    if args.json:
        print(json.dumps([hit.to_json() for hit in hits], ensure_ascii=False))
    else:
        print(render(hits))
    return 0
