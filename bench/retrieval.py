"""Retrieval figures: quality on real documentation, indexing speed, query latency, freshness.

    python bench/retrieval.py [--runs 3] [--files 10000] [--chunks 100000]

Prints, each over >= 3 runs (min / median / max):
- quality on bench/data/nodejs (Node.js docs, MIT, not written by us) with the 31 questions of
  bench/data/questions.json (answers in tables, code and prose): hit@5 (a relevant passage
  among the first five: what SPEC §10's "precision@5" target means), strict precision@5
  (relevant results / 5; at most 1/5 when one passage holds the answer) and MRR, BM25 alone
  (no dense model is shipped, so there is no hybrid figure). A result is relevant when it
  comes from the expected file and its line range contains the answer's first line;
- index time of a synthetic workspace of --files files (markdown with tables + Python), with
  the time to merely read the same files as the reference;
- query p50 / p95 on a store of --chunks chunks of Zipf-distributed words (20k-word
  vocabulary, like natural text; queries of 2-6 words drawn the same way), against a trivial
  SQLite query as reference;
- seconds from a file save to the first search that returns it (watchfiles + incremental
  re-index, in-process).
Targets (issue 14): hit@5 >= 0.8, query p50 <= 20 ms, save -> searchable <= 200 ms,
10k files <= 60 s.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from actions.index import WorkspaceIndex  # noqa: E402
from actions.index.chunking import chunk_document  # noqa: E402
from actions.index.sqlite_store import SqliteStore  # noqa: E402
from actions.index.watcher import watch  # noqa: E402
from actions.paths import Workspace  # noqa: E402

DATA = ROOT / "bench" / "data"
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "socket",
    "buffer",
    "stream",
    "parser",
    "token",
    "cache",
    "index",
    "query",
    "server",
    "client",
    "timeout",
    "retry",
    "config",
    "module",
    "package",
    "install",
    "build",
    "deploy",
    "table",
    "column",
    "row",
    "value",
    "key",
    "widget",
    "render",
    "layout",
    "router",
    "handler",
    "session",
    "cookie",
    "header",
    "request",
    "response",
    "error",
    "logger",
    "metric",
    "trace",
    "span",
    "queue",
    "worker",
    "thread",
    "process",
    "memory",
    "disk",
    "network",
    "packet",
]


def spread(values: list[float]) -> str:
    return f"min {min(values):.4g}  median {statistics.median(values):.4g}  max {max(values):.4g}"


def new_index(workspace: Path, store_dir: Path) -> WorkspaceIndex:
    return WorkspaceIndex(Workspace(workspace), SqliteStore(store_dir / "index.sqlite3"))


# ---------------------------------------------------------------- quality


def answer_lines(questions: list[dict[str, str]]) -> list[int]:
    lines = []
    for question in questions:
        text = (DATA / "nodejs" / question["path"]).read_text()
        offset = text.index(question["needle"])
        lines.append(text.count("\n", 0, offset) + 1)
    return lines


async def quality(tmp: Path) -> dict[str, float]:
    questions = json.loads((DATA / "questions.json").read_text())
    lines = answer_lines(questions)
    workspace = tmp / "docs"
    workspace.mkdir()
    for doc in (DATA / "nodejs").glob("*.md"):
        if doc.name != "SOURCE.md":
            shutil.copy(doc, workspace / doc.name)
    index = new_index(workspace, tmp / "quality-store")
    await index.update_all()
    hits5 = strict = reciprocal = 0.0
    by_kind: dict[str, list[int]] = {}
    for question, line in zip(questions, lines, strict=True):
        results = await index.search(question["q"], 10)
        relevant = [
            hit.chunk.document == question["path"]
            and hit.chunk.start_line <= line <= hit.chunk.end_line
            for hit in results
        ]
        first = relevant.index(True) + 1 if True in relevant else 0
        hits5 += 1 <= first <= 5
        strict += sum(relevant[:5]) / 5
        reciprocal += 1 / first if first else 0
        by_kind.setdefault(question["kind"], []).append(int(1 <= first <= 5))
    index.close()
    count = len(questions)
    result = {"hit@5": hits5 / count, "P@5": strict / count, "MRR": reciprocal / count}
    for kind, found in sorted(by_kind.items()):
        result[f"hit@5 {kind}"] = sum(found) / len(found)
    return result


# ---------------------------------------------------------------- indexing speed


def synthetic_workspace(root: Path, files: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    for number in range(files):
        folder = root / f"pkg{number % 100:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        words = [rng.choice(WORDS) for _ in range(300)]
        if number % 2:
            rows = "".join(
                f"| {rng.choice(WORDS)} | {rng.randint(0, 999)} | {rng.choice(WORDS)} |\n"
                for _ in range(8)
            )
            text = (
                f"# Doc {number}\n\n## {words[0]} {words[1]}\n\n"
                + " ".join(words[:150]).capitalize()
                + ".\n\n| name | size | kind |\n|---|---|---|\n"
                + rows
                + "\n## Usage\n\n```python\nimport x\nx.run()\n```\n\n"
                + " ".join(words[150:])
                + ".\n"
            )
            (folder / f"doc{number}.md").write_text(text)
        else:
            body = "".join(
                f"def {words[i]}_{i}(value):\n    return value + {i}  # {words[i + 1]}\n\n\n"
                for i in range(0, 40, 2)
            )
            (folder / f"mod{number}.py").write_text('"""Module."""\n\n\n' + body)


def read_all(root: Path) -> None:
    for path in root.rglob("*"):
        if path.is_file():
            path.read_bytes()


async def index_speed(tmp: Path, files: int, runs: int) -> tuple[list[float], list[float], int]:
    workspace = tmp / "many"
    synthetic_workspace(workspace, files)
    seconds, reference = [], []
    chunks = 0
    for run in range(runs):
        started = time.perf_counter()
        read_all(workspace)
        reference.append(time.perf_counter() - started)
        index = new_index(workspace, tmp / f"speed-store-{run}")
        started = time.perf_counter()
        await index.update_all()
        seconds.append(time.perf_counter() - started)
        chunks = index.store.chunk_count()
        index.close()
    return seconds, reference, chunks


# ---------------------------------------------------------------- query latency


class Zipf:
    """Words drawn like natural text: the r-th most frequent word has probability ~ 1/r."""

    def __init__(self, size: int, seed: int) -> None:
        self.rng = random.Random(seed)
        syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "po", "si", "de", "va", "zu", "be"]
        self.words = list(
            dict.fromkeys(
                "".join(self.rng.choice(syllables) for _ in range(self.rng.randint(2, 4)))
                for _ in range(size * 2)
            )
        )[:size]
        weights = [1 / rank for rank in range(1, len(self.words) + 1)]
        self.cumulative = list(itertools.accumulate(weights))

    def sample(self, count: int) -> list[str]:
        return self.rng.choices(self.words, cum_weights=self.cumulative, k=count)


def big_store(path: Path, chunks: int) -> tuple[SqliteStore, Zipf]:
    from actions.index.model import Chunk, DocumentRecord

    zipf = Zipf(20_000, 11)
    store = SqliteStore(path)
    per_doc = 50
    for doc in range(chunks // per_doc):
        name = f"d{doc}.md"
        batch = []
        for position in range(per_doc):
            text = " ".join(zipf.sample(120))
            batch.append(
                Chunk(
                    name,
                    position,
                    "text",
                    text,
                    f"{name}\nDoc {doc}\n{text}",
                    start_line=position * 3 + 1,
                    end_line=position * 3 + 3,
                )
            )
        store.replace_chunks(DocumentRecord(name, "ready", str(doc), chunks=per_doc), batch)
    return store, zipf


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    values = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        values.append((time.perf_counter() - started) * 1000)
    return values


def query_latency(
    tmp: Path, chunks: int, runs: int
) -> tuple[list[float], list[float], list[float]]:
    store, zipf = big_store(tmp / "latency.sqlite3", chunks)
    queries = [" ".join(zipf.sample(length)) for length in (2, 3, 4, 5, 6) for _ in range(40)]
    p50s, p95s, reference = [], [], []
    raw = sqlite3.connect(tmp / "latency.sqlite3")
    for _ in range(runs):
        values = [timed(lambda q=q: store.search(q, 8), 1)[0] for q in queries]  # type: ignore[misc]
        ordered = sorted(values)
        p50s.append(statistics.median(ordered))
        p95s.append(ordered[int(len(ordered) * 0.95) - 1])
        reference.append(
            statistics.median(
                timed(lambda: raw.execute("SELECT count(*) FROM documents").fetchone(), 50)
            )
        )
    store.close()
    raw.close()
    return p50s, p95s, reference


# ---------------------------------------------------------------- save -> searchable


async def freshness(tmp: Path, runs: int) -> list[float]:
    workspace = tmp / "fresh"
    workspace.mkdir()
    (workspace / "a.md").write_text("# A\n\nNothing yet.\n")
    index = new_index(workspace, tmp / "fresh-store")
    await index.update_all()
    stop = asyncio.Event()
    ready = asyncio.Event()
    found = asyncio.Event()
    expected = {"word": ""}

    async def on_change(paths: list[str]) -> None:
        await index.update_paths(paths)
        if expected["word"] and await index.search(expected["word"], 1):
            found.set()

    task = asyncio.ensure_future(watch(workspace, on_change, stop, ready=ready))
    await asyncio.wait_for(ready.wait(), 10)
    values = []
    for run in range(runs):
        word = f"zebra{run}quokka"
        expected["word"] = word
        found.clear()
        started = time.perf_counter()
        (workspace / "a.md").write_text(f"# A\n\nNow about {word}.\n")
        await asyncio.wait_for(found.wait(), 10)
        values.append(time.perf_counter() - started)
    stop.set()
    await task
    index.close()
    return values


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--chunks", type=int, default=100_000)
    args = parser.parse_args()
    runs = max(3, args.runs)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        scores = await quality(tmp)
        print("quality, BM25 (SQLite FTS5), Node.js docs, 31 questions (hybrid: no dense model)")
        for key, value in scores.items():
            print(f"  {key:<14} {value:.3f}")

        seconds, reference, chunks = await index_speed(tmp, args.files, runs)
        print(f"index {args.files} files ({chunks} chunks), seconds: {spread(seconds)}")
        print(f"  reference, only reading the files:  {spread(reference)}")
        ratio = statistics.median(seconds) / statistics.median(reference)
        print(f"  ratio index/read (medians): {ratio:.1f}")
        sample = (tmp / "many" / "pkg01" / "doc1.md").read_text()
        per_doc = timed(lambda: chunk_document("doc1.md", sample), 50)
        print(f"  chunking one markdown file, ms: {spread(per_doc)}")

        p50s, p95s, ref = query_latency(tmp, args.chunks, runs)
        print(f"query at {args.chunks} chunks, p50 ms: {spread(p50s)}")
        print(f"query at {args.chunks} chunks, p95 ms: {spread(p95s)}")
        print(f"  reference, trivial SQLite query ms: {spread(ref)}")

        fresh = await freshness(tmp, max(5, runs))
        print(f"save -> searchable, seconds: {spread(fresh)}")


if __name__ == "__main__":
    asyncio.run(main())
