"""The index rows of this tree against those of another git revision (A/B): a change to how
a build runs must not change what it writes. Prints; never asserts.

    python bench/index_rows_ab.py [REV] [--files 1000]   (default REV: main)

REV's code is extracted (`git archive`) into a temporary folder. For each corpus, copied
into a git repository (the listing goes through git, as users index), `agent-ls index
--no-embed --no-summaries` is run by REV's code and by this tree's, each in a new process
with its own store, and every row is compared: `documents` (all columns), `chunks` (all
columns, by id) and `chunks_fts` (`rowid`, `head`, `small`, `body`). Corpora: the bench's
synthetic workspace (bench/retrieval.py, `--files`), the Node.js docs of bench/data, npm's
docs, the Node.js API reference and undici's docs (the copies Debian's `nodejs` package
installs; skipped when absent) and this repository (`git archive HEAD`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from index_build import commit_all  # noqa: E402
from retrieval import synthetic_workspace  # noqa: E402

EXTERNAL = {
    "npm docs": Path("/usr/lib/node_modules/npm/docs/content"),
    "Node.js API reference": Path("/usr/share/doc/nodejs/api"),
    "undici docs": Path("/usr/lib/node_modules/npm/node_modules/undici/docs/docs"),
}
TABLES = {
    "documents": "SELECT * FROM documents ORDER BY path",
    "chunks": "SELECT * FROM chunks ORDER BY id",
    "chunks_fts": "SELECT rowid, head, small, body FROM chunks_fts ORDER BY rowid",
}


def extract(revision: str, target: Path) -> None:
    """The tree of ``revision`` of this repository, as files under ``target``."""
    target.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)


def corpora(temp: Path, files: int) -> dict[str, Path]:
    """Each corpus as a committed git repository under ``temp``."""
    found: dict[str, Path] = {}
    synthetic = temp / "synthetic"
    synthetic.mkdir()
    synthetic_workspace(synthetic, files)
    found[f"synthetic workspace ({files} files)"] = synthetic
    nodejs = shutil.copytree(ROOT / "bench" / "data" / "nodejs", temp / "nodejs")
    found["Node.js docs (bench/data)"] = nodejs
    for name, source in EXTERNAL.items():
        if source.is_dir():
            found[name] = shutil.copytree(source, temp / name.replace(" ", "-"))
        else:
            print(f"{name}: {source} absent, skipped")
    extract("HEAD", temp / "repository")
    found["this repository (HEAD)"] = temp / "repository"
    for root in found.values():
        commit_all(root)
    return found


def build(code: Path, workspace: Path, store: Path) -> Path:
    """The index database ``code``'s `agent-ls index` writes for ``workspace``."""
    env = dict(os.environ, PYTHONPATH=str(code), AGENT_LS_INDEX_DIR=str(store))
    command = [sys.executable, "-m", "server", "index", "--workspace", str(workspace)]
    command += ["--no-embed", "--no-summaries", "--json"]
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, cwd=code)
    (database,) = store.glob("*/index.sqlite3")
    return database


def compare(before: Path, after: Path) -> dict[str, tuple[int, int, str]]:
    """Per table: rows, rows that differ (or are missing on one side), the first of them."""
    found: dict[str, tuple[int, int, str]] = {}
    old, new = sqlite3.connect(before), sqlite3.connect(after)
    for table, query in TABLES.items():
        a, b = old.execute(query).fetchall(), new.execute(query).fetchall()
        differ = [(x, y) for x, y in zip(a, b, strict=False) if x != y]
        missing = abs(len(a) - len(b))
        first = repr(differ[0])[:300] if differ else ""
        found[table] = (max(len(a), len(b)), len(differ) + missing, first)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", nargs="?", default="main")
    parser.add_argument("--files", type=int, default=1000, help="synthetic workspace's files")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        temp = Path(name)
        extract(args.revision, temp / "before")
        total = 0
        print(f"| corpus | table | rows | differ ({args.revision} -> this tree) |")
        print("|---|---|---|---|")
        for corpus, workspace in corpora(temp, args.files).items():
            stores = temp / "stores" / workspace.name
            before = build(temp / "before", workspace, stores / "before")
            after = build(ROOT, workspace, stores / "after")
            for table, (rows, differ, first) in compare(before, after).items():
                total += differ
                print(f"| {corpus} | {table} | {rows} | {differ} |")
                if first:
                    print(f"  first: {first}")
        print(f"rows that differ: {total}")


if __name__ == "__main__":
    main()
