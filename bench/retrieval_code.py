"""Retrieval on code: a real package's source, questions a model asks about it (issue 27 item 5).

    python bench/retrieval_code.py [--runs 3] [--no-dense]

Installs click 8.1.7 (BSD-3-Clause, from PyPI, with pip into a temporary folder: the bench's
own download, never the tool's) and indexes its 17 source files (10k lines). The 36 questions
of bench/data/code_questions.json are of two kinds: ``name`` ("where is Context.ensure_object
defined", "LazyFile.open") and ``behaviour`` ("which function reads a single character from
the terminal", "what clamps a number into an integer range"); the gold is the file and line
range of one definition (click 8.1.7's lines). A result is relevant when it comes from that
file and its lines contain the definition's first line. Prints hit@5 and MRR (overall and per
kind) for BM25 alone and hybrid (with the `embeddings` extra), for today's chunking by syntax
against the 60-line windows every non-Python file had before (``windows``); then, for the
``name`` questions, how often ``find_symbol`` gives the exact lines first; and the index
build time (min / median / max of --runs builds, BM25 only).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import actions.index.source_chunks as source_chunks  # noqa: E402
from actions.index import WorkspaceIndex  # noqa: E402
from actions.index.embeddings import Embedder, load_embedder  # noqa: E402
from actions.index.sqlite_store import SqliteStore  # noqa: E402
from actions.paths import Workspace  # noqa: E402
from actions.tools.find_symbol import FindSymbol  # noqa: E402

PACKAGE = "click==8.1.7"
QUESTIONS = json.loads((ROOT / "bench" / "data" / "code_questions.json").read_text())
SYNTAX = source_chunks.syntax_chunks


def install(target: Path) -> Path:
    """The package's source files alone (no metadata, no bytecode) in ``target/src``."""
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", target, PACKAGE],
        check=True,
    )
    source = target / "src"
    shutil.copytree(
        target / "click", source / "click", ignore=shutil.ignore_patterns("__pycache__")
    )
    return source


async def build(source: Path, store: Path, embedder: Embedder | None) -> WorkspaceIndex:
    shutil.rmtree(store, ignore_errors=True)
    index = WorkspaceIndex(
        Workspace(source), SqliteStore(store / "index.sqlite3"), embedder=embedder
    )
    index.embed_in_background = False
    await index.update_all()
    if index.embeddings is not None:
        await index.embeddings.drain()
    return index


async def score(index: WorkspaceIndex, dense: bool) -> dict[str, float]:
    ranks: dict[str, list[int]] = {}
    for question in QUESTIONS:
        first_line = question["lines"][0]
        hits = await index.search(question["q"], 10, dense=dense)
        relevant = [
            hit.chunk.document == question["path"]
            and hit.chunk.start_line <= first_line <= hit.chunk.end_line
            for hit in hits
        ]
        rank = relevant.index(True) + 1 if True in relevant else 0
        ranks.setdefault("all", []).append(rank)
        ranks.setdefault(question["kind"], []).append(rank)
    result: dict[str, float] = {}
    for kind, found in ranks.items():
        result[f"hit@5 {kind}"] = sum(1 <= rank <= 5 for rank in found) / len(found)
        result[f"MRR {kind}"] = sum(1 / rank for rank in found if rank) / len(found)
    return result


async def symbols_exact(index: WorkspaceIndex) -> float:
    async def source() -> WorkspaceIndex:
        return index

    tool = FindSymbol(source)
    names = [question for question in QUESTIONS if question["kind"] == "name"]
    exact = 0
    for question in names:
        found = (await tool.execute({"name": question["symbol"], "k": 1})).data["symbols"]
        if found:
            top = found[0]
            exact += (top["path"], [top["startLine"], top["endLine"]]) == (
                question["path"],
                question["lines"],
            )
    return exact / len(names)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-dense", action="store_true", help="BM25 only (no embedder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        source = install(tmp / "pkg")
        embedder = None if args.no_dense else load_embedder()
        table: dict[str, dict[str, float]] = {}
        for chunking in ("syntax", "windows"):
            source_chunks.syntax_chunks = SYNTAX if chunking == "syntax" else _no_syntax  # type: ignore[assignment]
            index = await build(source, tmp / "store", embedder)
            table[f"{chunking} BM25"] = await score(index, dense=False)
            if embedder is not None:
                table[f"{chunking} hybrid"] = await score(index, dense=True)
            if chunking == "syntax":
                exact = await symbols_exact(index)
                chunks = index.store.chunk_count()
            index.close()
        source_chunks.syntax_chunks = SYNTAX  # type: ignore[assignment]
        print(f"code corpus: {PACKAGE} ({chunks} chunks by syntax), {len(QUESTIONS)} questions")
        columns = list(table)
        print(f"{'':<18}" + "".join(f"{column:>16}" for column in columns))
        for key in next(iter(table.values())):
            print(f"{key:<18}" + "".join(f"{table[column][key]:>16.3f}" for column in columns))
        print(f"find_symbol exact lines first, name questions: {exact:.3f}")
        seconds = []
        for _ in range(max(3, args.runs)):
            started = time.perf_counter()
            (await build(source, tmp / "store", None)).close()
            seconds.append(time.perf_counter() - started)
        low, mid, high = min(seconds), statistics.median(seconds), max(seconds)
        print(f"index build (BM25), seconds: min {low:.3f}  median {mid:.3f}  max {high:.3f}")


def _no_syntax(*_args: object) -> None:
    return None


if __name__ == "__main__":
    asyncio.run(main())
