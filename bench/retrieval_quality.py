"""Ranking quality on public documentation nobody on the team wrote, side by side with plain BM25.

    python bench/retrieval_quality.py [--runs 3] [--corpus nodejs,npm,...,pino,click]

For each corpus: hit@5 (a relevant passage among the first five) and MRR of agent-ls's BM25,
dense alone and hybrid (dense needs the `embeddings` extra), and, over the very same chunks,
plain FTS5 (one row per chunk: path, headings and text; SQLite's default ``unicode61``
tokenizer, the question's words OR-ed, ``bm25()``), the same with FTS5's ``porter`` stemmer,
and bm25s (PyPI; imported when installed, else installed with pip into a temporary folder,
``--no-bm25s`` to skip). A result is relevant when it comes from the expected file and its
line range holds the answer's first line. Latency: min / median / max over --runs runs of the
median time per question (BM25, hybrid with the query embedding).
Then, question by question, agent-ls BM25 (and hybrid) against each baseline: on how many
questions each is ahead, the MRR difference and its 95% paired bootstrap interval (an interval
holding 0: these questions cannot tell the two apart); with several corpora, the same over all
their questions pooled.

Corpora (nothing downloaded at run time but from the npm and PyPI registries):
- ``nodejs``: bench/data/nodejs, 10 files of the Node.js docs (Debian package ``nodejs``,
  MIT), 31 questions (bench/data/questions.json); the fusion rule was chosen on them.
- ``npm``: npm's own documentation, ``docs/content`` of the ``npm`` package (91 markdown
  files; the copy the Debian package ``nodejs`` installs under /usr/lib/node_modules/npm, else
  ``npm pack npm`` from the npm registry into a temporary folder), 22 questions
  (bench/data/questions_npm.json) written from the files before any search was run on them;
  nothing was tuned on them.
- ``nodeapi``: the whole Node.js API reference as Debian's ``nodejs`` package installs it
  (/usr/share/doc/nodejs/api/*.md, 64 files, MIT), 14 questions on modules outside
  bench/data/nodejs (bench/data/questions_nodeapi.json), written before any search was run
  on them, after the npm results were known: the check that a change made while looking at
  npm's questions holds elsewhere.
- ``undici``: the docs of undici 6.28.0 (an HTTP client for Node.js, MIT; ``docs/docs``, 32
  markdown files: API reference and best practices), the copy npm bundles in its
  node_modules, else ``npm pack undici@6.28.0`` from the npm registry into a temporary
  folder. 24 questions (bench/data/questions_undici.json) written from the files before any
  search was run on them and before the stemmer / fusion changes of issue 27's second round
  (its scores were then among those these rules were compared on).
- ``fastify``: the docs of fastify 4.28.1 (a web framework for Node.js, MIT; ``docs``, 40
  markdown files: reference and guides), ``npm pack fastify@4.28.1`` from the npm registry
  into a temporary folder. 22 questions (bench/data/questions_fastify.json) written from the
  files and committed before any search was run on them, as the held-out check of issue 27's
  third round (the ranking rule changes made while looking at npm's questions).
- ``pino``: the docs of pino 9.5.0 (a JSON logger for Node.js, MIT; ``docs``, 13 markdown
  files: API reference, transports, help), ``npm pack pino@9.5.0`` from the npm registry into
  a temporary folder. 24 questions (bench/data/questions_pino.json) written from the files and
  committed before any search was run on them, as the held-out check of issue 27's fifth round.
- ``click``: code, click 8.1.7's 17 source files (pip into a temporary folder, as
  bench/retrieval_code.py does) with its 36 questions (where is X defined, which function does
  Y); gold: the definition's file and first line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from actions.index import WorkspaceIndex  # noqa: E402
from actions.index.embeddings import Embedder, load_embedder  # noqa: E402
from actions.index.model import Chunk  # noqa: E402
from actions.index.sqlite_store import SqliteStore  # noqa: E402
from actions.paths import Workspace  # noqa: E402

DATA = ROOT / "bench" / "data"
NPM_DOCS = Path("/usr/lib/node_modules/npm/docs/content")
NODE_API = Path("/usr/share/doc/nodejs/api")
UNDICI = "undici@6.28.0"
UNDICI_DOCS = Path("/usr/lib/node_modules/npm/node_modules/undici")
FASTIFY = "fastify@4.28.1"
PINO = "pino@9.5.0"
Ranker = Callable[[str], list[Chunk]]
BOOTSTRAP = 10_000
BASELINES = ("plain FTS5 (unicode61)", "plain FTS5 (porter)", "bm25s")


@dataclass(frozen=True)
class Question:
    q: str
    path: str
    line: int


def questions(root: Path, name: str) -> list[Question]:
    found = []
    for item in json.loads((DATA / name).read_text()):
        text = (root / item["path"]).read_text()
        line = text.count("\n", 0, text.index(item["needle"])) + 1
        found.append(Question(item["q"], item["path"], line))
    return found


def npm_docs(tmp: Path) -> Path:
    """npm's docs/content: the Debian copy, else the npm registry's tarball of ``npm``."""
    if NPM_DOCS.is_dir():
        return NPM_DOCS
    subprocess.run(["npm", "pack", "npm", "--pack-destination", str(tmp)], check=True)
    (tarball,) = tmp.glob("npm-*.tgz")
    with tarfile.open(tarball) as archive:
        archive.extractall(tmp / "npm", filter="data")
    return tmp / "npm" / "package" / "docs" / "content"


def undici_docs(tmp: Path) -> Path:
    """undici's docs/docs: the copy npm bundles (when it is 6.28.0), else the registry's."""
    bundled = UNDICI_DOCS / "package.json"
    if bundled.is_file() and json.loads(bundled.read_text())["version"] == UNDICI.split("@")[1]:
        return UNDICI_DOCS / "docs" / "docs"
    subprocess.run(["npm", "pack", UNDICI, "--pack-destination", str(tmp)], check=True)
    (tarball,) = tmp.glob("undici-*.tgz")
    with tarfile.open(tarball) as archive:
        archive.extractall(tmp / "undici", filter="data")
    return tmp / "undici" / "package" / "docs" / "docs"


def packed_docs(tmp: Path, spec: str) -> Path:
    """The ``docs`` folder of the npm registry's tarball of ``spec`` (``name@version``)."""
    name = spec.split("@")[0]
    subprocess.run(["npm", "pack", "--quiet", spec, "--pack-destination", str(tmp)], check=True)
    (tarball,) = tmp.glob(f"{name}-*.tgz")
    with tarfile.open(tarball) as archive:
        archive.extractall(tmp / name, filter="data")
    return tmp / name / "package" / "docs"


def code_corpus(tmp: Path) -> tuple[Path, list[Question]]:
    """click's source (retrieval_code's package and questions), gold: a definition's first line."""
    import retrieval_code

    source = retrieval_code.install(tmp / "click-package")
    found = [Question(q["q"], q["path"], q["lines"][0]) for q in retrieval_code.QUESTIONS]
    return source, found


def corpus(name: str, tmp: Path) -> tuple[Path, list[Question]]:
    """The corpus copied into a workspace of its own, and its questions."""
    if name == "nodejs":
        source, file = DATA / "nodejs", "questions.json"
    elif name == "npm":
        source, file = npm_docs(tmp), "questions_npm.json"
    elif name == "nodeapi":
        if not NODE_API.is_dir():
            raise SystemExit(f"{NODE_API} is missing: apt-get install nodejs (Debian's)")
        source, file = NODE_API, "questions_nodeapi.json"
    elif name == "undici":
        source, file = undici_docs(tmp), "questions_undici.json"
    elif name == "fastify":
        source, file = packed_docs(tmp, FASTIFY), "questions_fastify.json"
    elif name == "pino":
        source, file = packed_docs(tmp, PINO), "questions_pino.json"
    elif name == "click":
        return code_corpus(tmp)
    else:
        raise SystemExit(
            f"unknown corpus {name!r}: nodejs, npm, nodeapi, undici, fastify, pino, click"
        )
    workspace = tmp / f"corpus-{name}"
    keep = shutil.ignore_patterns("SOURCE.md", "LICENSE", "*.html", "*.json.gz", "assets")
    shutil.copytree(source, workspace, ignore=keep)
    return workspace, questions(workspace, file)


@dataclass(frozen=True)
class Scores:
    """One run of a ranking over a corpus's questions."""

    hit: float  # hit@5
    mrr: float
    ms: float  # median milliseconds per question
    reciprocal: tuple[float, ...]  # each question's 1 / rank of its first relevant passage


def evaluate(rank: Ranker, items: list[Question]) -> Scores:
    times, reciprocal = [], []
    for item in items:
        started = time.perf_counter()
        results = rank(item.q)
        times.append((time.perf_counter() - started) * 1e3)
        relevant = [
            c.document == item.path and c.start_line <= item.line <= c.end_line for c in results
        ]
        reciprocal.append(1 / (relevant.index(True) + 1) if True in relevant else 0.0)
    hits = sum(value >= 1 / 5 for value in reciprocal)
    return Scores(
        hits / len(items), sum(reciprocal) / len(items), statistics.median(times), tuple(reciprocal)
    )


def paired(ours: tuple[float, ...], other: tuple[float, ...]) -> str:
    """Question by question: on how many each ranking is ahead, the MRR difference and its
    95% paired bootstrap interval (10,000 resamples of the questions, a fixed seed): an
    interval holding 0 is a difference these questions cannot tell from chance."""
    differences = [a - b for a, b in zip(ours, other, strict=True)]
    count = len(differences)
    draw = random.Random(27)
    means = sorted(sum(draw.choices(differences, k=count)) / count for _ in range(BOOTSTRAP))
    # rounded before printing, plus 0.0: no "-0.000"
    low, high = (round(means[int(share * BOOTSTRAP)], 3) + 0.0 for share in (0.025, 0.975))
    ahead = sum(value > 0 for value in differences)
    behind = sum(value < 0 for value in differences)
    return (
        f"ahead on {ahead}, behind on {behind} of {count}; MRR {sum(differences) / count:+.3f}"
        f" (95% interval {low:+.3f} to {high:+.3f})"
    )


def plain_fts5(chunks: list[Chunk], tokenizer: str) -> Ranker:
    """Plain FTS5 over the same chunks: one column, the question's words OR-ed."""
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE plain USING fts5(text, tokenize = '{tokenizer}')")
    db.executemany(
        "INSERT INTO plain (rowid, text) VALUES (?, ?)",
        [(number, chunk.indexed_text) for number, chunk in enumerate(chunks)],
    )

    def rank(query: str) -> list[Chunk]:
        words = re.findall(r"\w+", query.lower())
        if not words:
            return []
        match = " OR ".join(f'"{word}"' for word in dict.fromkeys(words))
        rows = db.execute(
            "SELECT rowid FROM plain WHERE plain MATCH ? ORDER BY bm25(plain) LIMIT 10", (match,)
        ).fetchall()
        return [chunks[row_id] for (row_id,) in rows]

    return rank


def bm25s_ranker(chunks: list[Chunk], tmp: Path) -> Ranker | None:
    """bm25s (Lucene BM25, its English stop words, no stemmer) over the same chunks."""
    try:
        import bm25s  # type: ignore[import-not-found]
    except ImportError:
        target = tmp / "bm25s-lib"
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--target", str(target), "bm25s"],
            check=False,
        )
        if done.returncode != 0:
            return None
        sys.path.insert(0, str(target))
        import bm25s  # type: ignore[import-not-found, no-redef]

    def tokens(texts: list[str]) -> list[list[str]]:
        found: list[list[str]] = bm25s.tokenize(
            texts, stopwords="en", return_ids=False, show_progress=False
        )
        return found

    retriever = bm25s.BM25()
    retriever.index(tokens([c.indexed_text for c in chunks]), show_progress=False)
    vocabulary = set(retriever.vocab_dict)

    def rank(query: str) -> list[Chunk]:
        words = [word for word in tokens([query])[0] if word in vocabulary]
        if not words:
            return []
        found, _ = retriever.retrieve([words], k=min(10, len(chunks)), show_progress=False)
        return [chunks[int(number)] for number in found[0]]

    return rank


async def measure(
    name: str, tmp: Path, embedder: Embedder | None, runs: int, use_bm25s: bool
) -> list[tuple[str, list[Scores]]]:
    workspace, items = corpus(name, tmp)
    store = SqliteStore(tmp / f"store-{name}" / "index.sqlite3")
    index = WorkspaceIndex(Workspace(workspace), store, embedder=embedder)
    index.embed_in_background = False
    await index.update_all()
    if index.embeddings is not None:
        await index.embeddings.drain()
    chunks = [c for path in sorted(store.documents()) for c in store.chunks_of(path)]
    rankers: list[tuple[str, Ranker]] = [
        ("agent-ls BM25", lambda q: [h.chunk for h in index.search_now(q, 10, dense=False)]),
    ]
    if embedder is not None:
        rankers.append(
            (
                "agent-ls dense",
                lambda q: [h.chunk for h in store.search("", 10, vector=embedder.embed([q])[0])],
            )
        )
        rankers.append(("agent-ls hybrid", lambda q: [h.chunk for h in index.search_now(q, 10)]))
    rankers.append(("plain FTS5 (unicode61)", plain_fts5(chunks, "unicode61")))
    rankers.append(("plain FTS5 (porter)", plain_fts5(chunks, "porter unicode61")))
    if use_bm25s:
        ranker = bm25s_ranker(chunks, tmp)
        if ranker is not None:
            rankers.append(("bm25s", ranker))
    results = [(label, [evaluate(rank, items) for _ in range(runs)]) for label, rank in rankers]
    files = len(store.documents())
    index.close()
    print(f"\n{name}: {files} files, {len(chunks)} chunks, {len(items)} questions")
    return results


def report(results: list[tuple[str, list[Scores]]]) -> None:
    print(f"  {'ranking':<24} {'hit@5':>6} {'MRR':>6}   ms per question: min / median / max")
    for label, values in results:
        first = values[0]  # the rankings are deterministic: every run scores the same
        times = [value.ms for value in values]
        print(
            f"  {label:<24} {first.hit:6.3f} {first.mrr:6.3f}   {min(times):.2f} / "
            f"{statistics.median(times):.2f} / {max(times):.2f}"
        )
    compare(dict((label, values[0].reciprocal) for label, values in results))


def compare(reciprocal: dict[str, tuple[float, ...]]) -> None:
    """agent-ls BM25 (and hybrid) against each baseline, question by question."""
    for label in ("agent-ls BM25", "agent-ls hybrid"):
        for baseline in BASELINES:
            ours, other = reciprocal.get(label), reciprocal.get(baseline)
            if ours and other and len(ours) == len(other):
                print(f"  {label} vs {baseline}: {paired(ours, other)}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--corpus", default="nodejs,npm,nodeapi,undici,fastify,pino,click")
    parser.add_argument("--no-bm25s", action="store_true")
    args = parser.parse_args()
    embedder = load_embedder()
    pooled: dict[str, tuple[float, ...]] = {}
    names = args.corpus.split(",")
    with tempfile.TemporaryDirectory() as name:
        for corpus_name in names:
            results = await measure(
                corpus_name, Path(name), embedder, max(1, args.runs), not args.no_bm25s
            )
            report(results)
            for label, values in results:
                pooled[label] = pooled.get(label, ()) + values[0].reciprocal
    if len(names) > 1:
        print(f"\nall {len(names)} corpora pooled, MRR over their questions:")
        print(
            "\n".join(
                f"  {label:<24} {sum(v) / len(v):.3f} ({len(v)})" for label, v in pooled.items()
            )
        )
        compare(pooled)
    if embedder is None:
        print("(no dense / hybrid: the embeddings extra is missing)")


if __name__ == "__main__":
    asyncio.run(main())
