"""CPU of `agent-ls index --no-embed` against a plain FTS5 build of the same chunks (issue 27,
item 8: within 5x).

    python bench/index_build.py [--files 1000,5000] [--runs 3] [--profile]

For each size, builds a synthetic workspace (bench/retrieval.py's: markdown with tables and
code, Python modules, in 100 folders) committed to a git repository (what users index: the
listing goes through git), then, each run on a fresh store:
- `agent-ls index --workspace DIR --no-embed --no-summaries --json` in a new process, as a
  user runs it: CPU seconds (user + system, its children included) and wall;
- reference: a new Python process reading every file of the workspace and inserting the
  chunks the index holds (their indexed text, read from the index just built) into one plain
  FTS5 table (`unicode61`, one column) in one transaction — what any FTS5 index of these chunks
  costs, without chunking;
- floor: a new Python process doing only what the libraries and SQLite do in any build that
  keeps these chunks and this index: every file read, parsed by the same markdown-it-py block
  parser and tree-sitter parser the index uses, and the index's own rows (documents, chunks and
  the three FTS columns of the index just built) copied by SQLite into the same tables in one
  transaction (`INSERT ... SELECT` from the built file: no Python object per row, so a lower
  bound) — no chunking, no words, no orchestration of ours: what a build costs if all of our
  Python took no time;
- `python -c pass` (the interpreter's start, in every figure).
Prints min / median / max of each, the median of voluntary context switches (threads handing
the GIL to each other show there: round 5 of docs/retrieval.md) and the ratio of the medians
of CPU seconds (the larger size weighs the fixed start-up less).
`--profile`: one more index run under cProfile, every thread profiled on its own CPU clock
(planning and writing run on worker threads) and the profiles merged: its 25 most expensive
functions (cumulative; the profiler's overhead inflates small functions called often).
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from retrieval import synthetic_workspace  # noqa: E402

PLAIN_FTS5 = """
import os, sqlite3, sys
workspace, chunks, target = sys.argv[1:4]
for folder, dirs, names in os.walk(workspace):
    dirs[:] = [name for name in dirs if name != ".git"]
    for name in names:
        with open(os.path.join(folder, name), "rb") as handle:
            handle.read()
texts = [row[0] for row in sqlite3.connect(chunks).execute("SELECT indexed_text FROM chunks")]
db = sqlite3.connect(target)
db.execute("CREATE VIRTUAL TABLE fts USING fts5(body)")
with db:
    db.executemany("INSERT INTO fts (body) VALUES (?)", [(text,) for text in texts])
db.close()
"""

FLOOR = """
import os, sqlite3, sys
from actions.index.grammars import parser_for
from actions.index.markdown_elements import _blocks_only
workspace, built, target = sys.argv[1:4]
markdown, python = _blocks_only(), parser_for("python")
for folder, dirs, names in os.walk(workspace):
    dirs[:] = [name for name in dirs if name != ".git"]
    for name in names:
        with open(os.path.join(folder, name), "rb") as handle:
            data = handle.read()
        if name.endswith(".md"):
            markdown.parse(data.decode())
        elif name.endswith(".py"):
            python.parse(data)
db = sqlite3.connect(target)
db.execute("ATTACH ? AS built", (built,))
schema = dict(db.execute("SELECT name, sql FROM built.sqlite_master WHERE type = 'table'"))
with db:
    for table in ("documents", "chunks", "chunks_fts"):
        db.execute(schema[table])
        names = [row[1] for row in db.execute(f"PRAGMA built.table_info({table})")]
        columns = ", ".join(["rowid", *names])
        db.execute(f"INSERT INTO main.{table} ({columns}) SELECT {columns} FROM built.{table}")
db.close()
"""


ALL_THREADS = """
import cProfile, pstats, runpy, sys, threading, time
profiles = [cProfile.Profile(time.thread_time)]
run = threading.Thread.run

def profiled(self):
    profile = cProfile.Profile(time.thread_time)
    profiles.append(profile)
    profile.runcall(run, self)

threading.Thread.run = profiled
sys.argv = ["server", *sys.argv[1:]]
try:
    profiles[0].runcall(runpy.run_module, "server", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
merged = pstats.Stats(profiles[0])
for profile in profiles[1:]:
    merged.add(profile)
merged.sort_stats("cumulative").print_stats(25)
"""


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall and CPU seconds (user + system, children included) and voluntary context
    switches of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_nvcsw - before.ru_nvcsw


def row(name: str, results: list[tuple[float, float, int]]) -> str:
    walls, cpus = [w for w, _, _ in results], [c for _, c, _ in results]
    switches = statistics.median(s for _, _, s in results)
    return (
        f"| {name} | {min(cpus):.2f} | {statistics.median(cpus):.2f} | {max(cpus):.2f} "
        f"| {statistics.median(walls):.2f} | {switches:.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", default="1000,5000", help="sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    for files in [int(size) for size in args.files.split(",")]:
        measure(files, args.runs, args.profile)


def commit_all(root: Path) -> None:
    git = ["git", "-C", str(root), "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "workspace"]):
        subprocess.run([*git, *command], check=True)


def measure(files: int, runs: int, profile: bool) -> None:
    with tempfile.TemporaryDirectory() as temp:
        workspace = Path(temp) / "ws"
        workspace.mkdir()
        synthetic_workspace(workspace, files)
        commit_all(workspace)
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=f"{temp}/pycache")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        agent = [sys.executable, "-m", "server", "index", "--workspace", str(workspace)]
        agent += ["--no-embed", "--no-summaries", "--json"]
        index, plain, floor, start = [], [], [], []
        for run in range(runs + 1):  # the first: warm-up (byte code, page cache)
            env["AGENT_LS_INDEX_DIR"] = store = f"{temp}/store{run}"
            built = timed(agent, env)
            (database,) = Path(store).glob("*/index.sqlite3")
            target = f"{temp}/plain{run}.sqlite3"
            reference = timed(
                [sys.executable, "-c", PLAIN_FTS5, str(workspace), str(database), target], env
            )
            least = timed(
                [sys.executable, "-c", FLOOR, str(workspace), str(database), f"{target}.floor"], env
            )
            interpreter = timed([sys.executable, "-c", "pass"], env)
            if run:
                index.append(built)
                plain.append(reference)
                floor.append(least)
                start.append(interpreter)
        chunks = sqlite3.connect(database).execute("SELECT count(*) FROM chunks").fetchone()[0]
        load = os.getloadavg()[0]
        print(f"\n{files} files, {chunks} chunks, {runs} runs (load average {load:.1f})")
        print("| build | min CPU s | median CPU s | max CPU s | median wall s | switches |")
        print("|---|---|---|---|---|---|")
        print(row("agent-ls index --no-embed", index))
        print(row("plain FTS5 of the same chunks", plain))
        print(row("floor: the libraries' parses and our rows into SQLite", floor))
        print(row("python -c pass", start))
        reference = statistics.median(r[1] for r in plain)
        ratio = statistics.median(r[1] for r in index) / reference
        least_ratio = statistics.median(r[1] for r in floor) / reference
        print(
            f"ratio (median CPU): {ratio:.1f}x; floor {least_ratio:.1f}x;"
            f" agent-ls index against the floor {ratio / least_ratio:.1f}x"
        )
        if profile:
            env["AGENT_LS_INDEX_DIR"] = f"{temp}/profiled"
            output = subprocess.run(
                [sys.executable, "-c", ALL_THREADS, *agent[3:]],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            lines = output.splitlines()
            first = next(i for i, line in enumerate(lines) if "ncalls" in line)
            print("\n".join(lines[first : first + 26]))


if __name__ == "__main__":
    main()
