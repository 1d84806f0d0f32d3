"""Time added to a command by recording what it changes (issue 25: <= 200 ms at 20k files).

A temporary git repository with FILES committed files (small, realistic sizes: mostly 0.2 to
8 KB, nested folders, a .gitignore), its index refreshed as a user's is, then a few dirty
files (2 changed, 1 deleted, 2 untracked). Each run executes a real shell command that changes
3 files (2 tracked files appended to, 1 file created):
- alone: the command by itself;
- git scan: `run_capturing` around it (actions.change_scan: git status against a copy of the
  index before and after, the dirty files' bytes held, one checkpoint recorded);
- full snapshot: what the scan did before (every listed file read before, compared after),
  the fallback outside git, measured on the same repository;
- no git: `run_capturing` with the repository's .git moved away (the snapshot fallback).
Prints wall-clock min / median / max over RUNS runs, the median added to the command alone and
its ratio, and the median CPU time added (this process and its git children: on a machine
shared with other work the wall-clock includes waiting for a CPU, the CPU time does not).
Usage: python bench/command_changes.py [--files 20000] [--runs 7] [--fallback-runs 3].
Never asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from actions.checkpoints import CheckpointStore
from actions.external_edits import Snapshot, record_changes, run_capturing, scope_of
from actions.paths import Workspace

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}
LINE = "    value = compute(items[index], weight=0.5)  # keep the order stable\n"


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True)


def make_repo(root: Path, count: int) -> None:
    """`count` committed files of realistic sizes, a .gitignore, an index refreshed."""
    rng = random.Random(25)
    git(root, "init", "-q")
    (root / ".gitignore").write_text("build/\n*.log\n")
    for number in range(count - 2):  # with README.md and .gitignore
        path = root / tracked(number)
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = max(3, int(rng.lognormvariate(3.2, 0.9)))
        path.write_text(LINE * min(lines, 400))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "files")
    old = time.time() - 3600
    for path in root.rglob("*.py"):
        os.utime(path, (old, old))  # written long ago, as in a user's checkout
    git(root, "update-index", "-q", "--refresh")  # the user's own git status did this
    (root / tracked(0)).write_text("changed before\n")
    (root / tracked(1)).write_text(LINE * 50)
    (root / tracked(2)).unlink()
    (root / "notes.txt").write_text("untracked\n")
    (root / "scratch.py").write_text("print('draft')\n")


def tracked(number: int) -> str:
    return f"pkg{number // 400:02d}/mod{(number // 40) % 10}/file{number}.py"


async def command(root: Path, run: int) -> None:
    """Appends to a clean committed file and to README.md (dirty after the first run), creates
    a file."""
    line = f"echo x >> {tracked(1000 + run)} && echo y >> README.md && echo n > new{run}.py"
    process = await asyncio.create_subprocess_exec("sh", "-c", line, cwd=root)
    await process.wait()


async def snapshot_around(
    workspace: Workspace, store: CheckpointStore, run: Callable[[], Awaitable[None]]
) -> None:
    """The scan as it was: every listed file read before, all compared after."""
    before = await asyncio.to_thread(Snapshot.take, scope_of(workspace, store))
    await run()
    await asyncio.to_thread(record_changes, workspace, store, before, "command", "bench")


def cpu_ms() -> float:
    """CPU time (user + system) of this process and its finished children, in ms."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return 1000 * (own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime)


async def timed(root: Path, runs: int, mode: str) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU ms of each run."""
    workspace = Workspace(root)
    store = CheckpointStore(root, store_dir=root.parent / f"store-{mode}")
    times, cpu = [], []
    for number in range(runs):
        tag = number + {"alone": 0, "git": 100, "snapshot": 200, "nogit": 300}[mode]
        start, start_cpu = time.perf_counter(), cpu_ms()
        if mode == "alone":
            await command(root, tag)
        elif mode == "snapshot":
            await snapshot_around(workspace, store, lambda tag=tag: command(root, tag))
        else:
            await run_capturing(
                workspace, store, "bench", "command", lambda tag=tag: command(root, tag)
            )
        times.append((time.perf_counter() - start) * 1000)
        cpu.append(cpu_ms() - start_cpu)
    return times, cpu


def row(name: str, measured: tuple[list[float], list[float]], alone: tuple[float, float]) -> str:
    times, cpu = measured
    median = statistics.median(times)
    return (
        f"{name:<16}{min(times):>9.1f}{median:>9.1f}{max(times):>9.1f}"
        f"{median - alone[0]:>+11.1f}{median / alone[0]:>8.1f}x"
        f"{statistics.median(cpu) - alone[1]:>+13.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--fallback-runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-commands-") as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        (root / "README.md").write_text("# bench\n")
        make_repo(root, args.files)
        alone = asyncio.run(timed(root, args.runs, "alone"))
        scan = asyncio.run(timed(root, args.runs, "git"))
        full = asyncio.run(timed(root, args.fallback_runs, "snapshot"))
        shutil.move(root / ".git", Path(tmp) / "git-away")
        nogit = asyncio.run(timed(root, args.fallback_runs, "nogit"))
    base = statistics.median(alone[0]), statistics.median(alone[1])
    print(f"{args.files} committed files, a command changing 3 files; ms ({os.cpu_count()} CPUs,")
    print(f"load average {os.getloadavg()[0]:.1f}: wall-clock grows with the load, CPU time less)")
    print(f"{'':<16}{'min':>9}{'median':>9}{'max':>9}{'added':>11}{'ratio':>9}{'added CPU':>13}")
    print(row("command alone", alone, base))
    print(row("git scan", scan, base))
    print(row("full snapshot", full, base))
    print(row("no git (walk)", nogit, base))


if __name__ == "__main__":
    main()
