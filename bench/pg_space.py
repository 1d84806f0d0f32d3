"""Space, writes, rankings and lexical latency of the PostgreSQL index's lexical layout, one
database per layout on one server, so two versions of the code compare on the same chunks.

    python bench/pg_space.py --url postgresql://... --database old --chunks 20000 \
        --code /tmp/agent-ls-main --out old.json [--runs 3] [--sqlite]
    python bench/pg_space.py --compare old.json new.json

--code: the agent-ls tree whose ``actions`` is imported (default: this one), e.g. ``git
worktree``/``git archive`` of main for the "before". The database is created when missing and
filled with --chunks chunks of the Zipf words of bench/retrieval_pg.py (one document of 50
chunks per transaction, no vectors: the lexical layout is measured) unless it already holds
them; opening it with newer code upgrades its layout (the open is timed). Prints and writes to
--out: the open time, the fill time, ``pg_total_relation_size`` of every table of the schema
(and of each index), the top 8 / top 50 (document, position, score) of 374 queries, and
lexical p50 / p95 of the 200 bench queries over --runs runs (a new connection each run: cold
word statistics), with SQLite's on the same chunks in the same run when --sqlite is given.
--writes: also the time to write 80 documents of 50 chunks (40 a transaction each, 40 in
batches of 20 documents) into a new workspace of the database, after the rest.
--compare counts the queries whose rankings differ (hits, order, scores to 1e-9).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def queries() -> list[str]:
    """The bench's 200 queries (retrieval_pg.py: after its fill, the same generator state)
    and 174 others of 1-6 words, some with a word no chunk holds."""
    import retrieval

    zipf = retrieval.Zipf(20_000, 11)
    rng = random.Random(17)
    bench = [" ".join(zipf.sample(length)) for length in (2, 3, 4, 5, 6) for _ in range(40)]
    others = [
        " ".join(zipf.sample(rng.randint(1, 6)) + (["qqzzunknown"] if i % 7 == 0 else []))
        for i in range(174)
    ]
    return bench + others


def fill(store: Any, chunks: int) -> float:
    import retrieval

    from actions.index.model import Chunk, DocumentRecord

    zipf = retrieval.Zipf(20_000, 11)
    per_doc = 50
    started = time.perf_counter()
    for doc in range(chunks // per_doc):
        name = f"d{doc}.md"
        batch = [
            Chunk(name, position, "text", text, f"{name}\nDoc {doc}\n{text}")
            for position, text in ((p, " ".join(zipf.sample(120))) for p in range(per_doc))
        ]
        store.replace_chunks(DocumentRecord(name, "ready", str(doc), chunks=per_doc), batch)
    return time.perf_counter() - started


def writes(url: str) -> dict[str, float]:
    """Seconds to write 40 documents of 50 chunks a transaction each, then 40 more in
    batches of 20 documents (``replace_many``, as the indexer writes), in a new workspace."""
    import retrieval

    from actions.index.model import Chunk, DocumentRecord
    from actions.index.pg_store import PgStore

    zipf = retrieval.Zipf(20_000, 11)
    store = PgStore(url, f"bench-writes-{random.random()}")
    documents = [
        (
            DocumentRecord(f"w{doc}.md", "ready", str(doc), chunks=50),
            [
                Chunk(f"w{doc}.md", position, "text", text, f"w{doc}.md\nDoc {doc}\n{text}")
                for position, text in ((p, " ".join(zipf.sample(120))) for p in range(50))
            ],
        )
        for doc in range(80)
    ]
    started = time.perf_counter()
    for record, chunks in documents[:40]:
        store.replace_chunks(record, chunks)
    single = time.perf_counter() - started
    started = time.perf_counter()
    for first in range(40, 80, 20):
        store.replace_many(documents[first : first + 20])
    batched = time.perf_counter() - started
    store.close()
    return {"a document per transaction s": single, "batches of 20 documents s": batched}


def sizes(url: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT c.relname, c.relkind, CASE c.relkind WHEN 'r' THEN"
            " pg_total_relation_size(c.oid) ELSE pg_relation_size(c.oid) END"
            " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'agent_ls' AND c.relkind IN ('r', 'i') ORDER BY 1"
        ).fetchall()
    found = {f"{name}{'' if kind == 'r' else ' (index)'}": int(size) for name, kind, size in rows}
    found["total"] = sum(size for name, size in found.items() if "(index)" not in name)
    return found


def rankings(store: Any, asked: list[str]) -> dict[str, list[list[Any]]]:
    return {
        f"{k} {query}": [
            [h.chunk.document, h.chunk.position, h.score] for h in store.search(query, k)
        ]
        for query in asked
        for k in (8, 50)
    }


def latency(open_store: Any, asked: list[str], runs: int) -> tuple[list[float], list[float]]:
    p50s, p95s = [], []
    for _ in range(runs):
        store = open_store()
        values = []
        for query in asked:
            started = time.perf_counter()
            store.search(query, 8)
            values.append((time.perf_counter() - started) * 1000)
        store.close()
        ordered = sorted(values)
        p50s.append(statistics.median(ordered))
        p95s.append(ordered[int(len(ordered) * 0.95) - 1])
    return p50s, p95s


def spread(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def measure(args: argparse.Namespace) -> dict[str, Any]:
    import psycopg

    from actions.index.pg_store import PgStore

    base = args.url
    with psycopg.connect(base, autocommit=True) as conn:
        if not conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (args.database,)
        ).fetchone():
            conn.execute(f'CREATE DATABASE "{args.database}"')
    url = psycopg.conninfo.make_conninfo(base, dbname=args.database)
    result: dict[str, Any] = {"database": args.database, "code": str(args.code)}
    started = time.perf_counter()
    store = PgStore(url, "bench-space")
    result["open s"] = time.perf_counter() - started
    if store.chunk_count() < args.chunks:
        result["fill s"] = fill(store, args.chunks)
    result["chunks"] = store.chunk_count()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
    result["sizes"] = sizes(url)
    asked = queries()
    result["rankings"] = {} if args.skip_rankings else rankings(store, asked)
    store.close()
    result["load"] = os.getloadavg()[0]
    p50s, p95s = latency(lambda: PgStore(url, "bench-space"), asked[:200], args.runs)
    result["p50 ms"], result["p95 ms"] = p50s, p95s
    if args.sqlite:
        from actions.index.sqlite_store import SqliteStore

        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "ref.sqlite3"
            lite = SqliteStore(path)
            fill(lite, args.chunks)
            lite.close()
            result["sqlite p50 ms"], _ = latency(lambda: SqliteStore(path), asked[:200], args.runs)
    if args.writes:
        result["writes"] = writes(url)
    result["load after"] = os.getloadavg()[0]
    return result


def report(result: dict[str, Any]) -> None:
    print(f"{result['database']} ({result['code']}): {result['chunks']} chunks")
    print(
        f"  open {result['open s']:.1f} s"
        + (f", fill {result['fill s']:.1f} s" if "fill s" in result else "")
    )
    for name, size in result["sizes"].items():
        print(f"  {name:<40} {size / 1e6:>10.1f} MB")
    print(
        f"  lexical p50 ms (min / median / max): {spread(result['p50 ms'])}"
        f"  p95 {spread(result['p95 ms'])}  load {result['load']:.1f}-{result['load after']:.1f}"
    )
    for name, value in result.get("writes", {}).items():
        print(f"  writes, 2000 chunks, {name[:-2]}: {value:.2f} s")
    if "sqlite p50 ms" in result:
        print(f"  SQLite p50 ms, same run: {spread(result['sqlite p50 ms'])}")


def compare(paths: list[str]) -> None:
    first, second = (json.loads(Path(path).read_text()) for path in paths)
    differ = 0
    for key, hits in first["rankings"].items():
        other = second["rankings"][key]
        same = len(hits) == len(other) and all(
            a[:2] == b[:2] and abs(a[2] - b[2]) <= 1e-9 for a, b in zip(hits, other, strict=True)
        )
        differ += not same
    print(f"{differ} of {len(first['rankings'])} rankings differ ({paths[0]} vs {paths[1]})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="")
    parser.add_argument("--database", default="space")
    parser.add_argument("--chunks", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--code", type=Path, default=ROOT)
    parser.add_argument("--out", default="")
    parser.add_argument("--sqlite", action="store_true")
    parser.add_argument("--writes", action="store_true", help="also time 80 document writes")
    parser.add_argument("--skip-rankings", action="store_true")
    parser.add_argument("--compare", nargs=2, default=None)
    args = parser.parse_args()
    if args.compare:
        compare(args.compare)
        return
    sys.path[:0] = [str(args.code), str(ROOT / "bench")]
    result = measure(args)
    report(result)
    if args.out:
        Path(args.out).write_text(json.dumps(result))


if __name__ == "__main__":
    main()
