"""Wall time of `agent-ls search` on a warm index, as a user runs it (issue 27, item 6).

    python bench/cli_search.py [--files 2000] [--runs 7] [--update] [--code DIR]

Builds a synthetic workspace (bench/retrieval.py's: markdown with tables and code, Python
modules), indexes it once with `agent-ls index --no-embed` (vectors, with the `embeddings`
extra, stay pending: the search is hybrid over the chunks embedded, BM25 over all), then
times `agent-ls search --workspace DIR --json QUERY`, each a new process:
- warm: the index is fresh, so the search does not walk the workspace;
- `--update` (with --update): the walk forced, the cost of a stale index;
- reference: `python -c pass` (the interpreter's own start).
Byte-compiled modules are kept in a temporary PYTHONPYCACHEPREFIX (as an installed package
has them); one warm-up run is not counted. Prints min / median / max wall seconds and the
CPU seconds (user + system) of each, and the load average before and after.
`--code DIR`: time the agent-ls of another checkout (e.g. a worktree of main) instead.
Target (issue 27): the warm search <= 0.5 s wall on 2 idle cores.
"""

from __future__ import annotations

import argparse
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

from retrieval import synthetic_workspace  # noqa: E402

QUERY = "how is the configuration loaded"


def load() -> str:
    with open("/proc/loadavg") as handle:
        return " ".join(handle.read().split()[:3])


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (children: user + system) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    cwd = env["PYTHONPATH"]  # `python -m server` imports the checkout it runs in
    subprocess.run(command, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def series(command: list[str], env: dict[str, str], runs: int) -> list[tuple[float, float]]:
    timed(command, env)  # warm-up: byte-compiled modules written, files in the page cache
    return [timed(command, env) for _ in range(runs)]


def row(name: str, results: list[tuple[float, float]]) -> str:
    walls = [wall for wall, _ in results]
    cpus = [cpu for _, cpu in results]
    return (
        f"| {name} | {min(walls):.3f} | {statistics.median(walls):.3f} | {max(walls):.3f} "
        f"| {statistics.median(cpus):.3f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--update", action="store_true", help="also time `search --update`")
    parser.add_argument("--code", type=Path, default=ROOT, help="the agent-ls checkout to time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        workspace, cache = Path(temp) / "ws", Path(temp) / "cache"
        workspace.mkdir()
        synthetic_workspace(workspace, args.files)
        code = str(args.code.resolve())
        env = dict(os.environ, AGENT_LS_INDEX_DIR=str(cache), PYTHONPATH=code)
        env["PYTHONPYCACHEPREFIX"] = str(Path(temp) / "pycache")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        agent = [sys.executable, "-m", "server"]
        subprocess.run(
            [*agent, "index", "--workspace", str(workspace), "--no-embed", "--json"],
            env=env,
            cwd=code,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        search = [*agent, "search", "--workspace", str(workspace), "--json", QUERY]
        print(f"{code}: {args.files} files, {args.runs} runs each; load before: {load()}")
        print("| command | min s | median s | max s | median CPU s |")
        print("|---|---|---|---|---|")
        print(row("python -c pass", series([sys.executable, "-c", "pass"], env, args.runs)))
        print(row("agent-ls search (warm)", series(search, env, args.runs)))
        if args.update:
            print(row("agent-ls search --update", series([*search, "--update"], env, args.runs)))
        print(f"load after: {load()}")


if __name__ == "__main__":
    main()
