"""Full index time of a committed repository, measured the way users run it: `agent-ls index`.

    python bench/index_cli.py [--files 10000] [--runs 3] [--baseline REV]

Builds a git repository of --files synthetic files (markdown with tables and code, Python
modules: the workspace of bench/retrieval.py), commits it, then times, each run on a fresh
store (`AGENT_LS_INDEX_DIR` in a temporary folder):
- `agent-ls index --workspace REPO --json --no-embed` of this tree (a new process, as a user
  runs it): the time until every file is searchable (BM25). With the `embeddings` extra the
  dense vectors follow in the background (about 27 chunks/s on a quiet 2-core machine:
  bench/retrieval.py prints the throughput), so they are not part of this figure;
- the same again on the built index (nothing changed: the incremental path);
- reference: a new Python process reading and hashing every committed file (the floor: what
  any indexer has to do before chunking anything);
- with --baseline REV: `agent-ls index` of the code at REV (a temporary git worktree), runs
  interleaved with this tree's so both see the same machine load.
Prints min / median / max of each (with the CPU seconds of the index runs, worker processes
included: on a shared machine wall time follows the load, CPU time much less), ratios of
medians, and the load average before, during and after.
Target (issue 14): a full index of 10k files <= 60 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from retrieval import spread, synthetic_workspace  # noqa: E402

READ_ALL = """
import hashlib, subprocess, sys
root = sys.argv[1]
names = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True).stdout
for name in names.decode().split("\\0"):
    if name:
        with open(f"{root}/{name}", "rb") as handle:
            hashlib.sha256(handle.read()).hexdigest()
"""


def load() -> str:
    with open("/proc/loadavg") as handle:
        return " ".join(handle.read().split()[:3])


def committed_repo(root: Path, files: int) -> None:
    synthetic_workspace(root, files)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "bench"], cwd=root, check=True)


CPU: list[float] = []  # CPU seconds (user + sys, worker processes included) of each index run


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_index(code: Path, repo: Path, store: Path) -> tuple[float, dict[str, object]]:
    env = {**os.environ, "AGENT_LS_INDEX_DIR": str(store), "PYTHONPATH": str(code)}
    cpu = children_cpu()
    started = time.perf_counter()
    command = [sys.executable, "-m", "server", "index", "--workspace", str(repo), "--json"]
    if "--no-embed" in (code / "server" / "commands" / "index.py").read_text():
        command.append("--no-embed")  # searchable (BM25); vectors follow in the background
    done = subprocess.run(
        command,
        cwd=code,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    seconds = time.perf_counter() - started
    CPU.append(children_cpu() - cpu)
    return seconds, json.loads(done.stdout)


def timed_read(repo: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", READ_ALL, str(repo)], check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", help="a git revision to compare against (e.g. main)")
    args = parser.parse_args()
    runs = max(3, args.runs)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        repo = tmp / "repo"
        committed_repo(repo, args.files)
        baseline = tmp / "baseline"
        if args.baseline:
            subprocess.run(
                ["git", "worktree", "add", "-q", "--detach", str(baseline), args.baseline],
                cwd=ROOT,
                check=True,
            )
        figures: dict[str, list[float]] = {
            name: [] for name in ("full", "full cpu", "again", "read", "base", "base cpu")
        }
        chunks = 0
        print(f"load before: {load()}  (cores: {os.cpu_count()})")
        try:
            for run in range(runs):
                figures["read"].append(timed_read(repo))
                if args.baseline:
                    seconds, _ = timed_index(baseline, repo, tmp / f"base-{run}")
                    figures["base"].append(seconds)
                    figures["base cpu"].append(CPU[-1])
                seconds, result = timed_index(ROOT, repo, tmp / f"store-{run}")
                figures["full"].append(seconds)
                figures["full cpu"].append(CPU[-1])
                chunks = int(str(result["chunks"]))
                assert result["documents"] == {
                    "pending": 0,
                    "chunked": 0,
                    "ready": args.files,
                    "failed": 0,
                }, result
                figures["again"].append(timed_index(ROOT, repo, tmp / f"store-{run}")[0])
                print(f"  run {run + 1}: load {load()}")
        finally:
            if args.baseline:
                subprocess.run(
                    ["git", "worktree", "remove", "--force", str(baseline)], cwd=ROOT, check=False
                )
        print(f"load after: {load()}")
        full = statistics.median(figures["full"])
        print(f"agent-ls index, {args.files} committed files ({chunks} chunks), seconds:")
        print(f"  full build:               {spread(figures['full'])}")
        print(f"    its CPU (user+sys):     {spread(figures['full cpu'])}")
        print(f"  again, nothing changed:   {spread(figures['again'])}")
        print(f"  reference, read + hash:   {spread(figures['read'])}")
        print(f"  ratio full/read (medians): {full / statistics.median(figures['read']):.1f}")
        if args.baseline:
            base = statistics.median(figures["base"])
            print(f"  baseline {args.baseline}:  {spread(figures['base'])}")
            print(f"    its CPU (user+sys):     {spread(figures['base cpu'])}")
            print(f"  ratio full/baseline (medians): {full / base:.2f}")
            cpu = statistics.median(figures["full cpu"]) / statistics.median(figures["base cpu"])
            print(f"  ratio of CPU full/baseline (medians): {cpu:.2f}")


if __name__ == "__main__":
    main()
