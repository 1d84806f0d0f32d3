"""Cost of a checkpoint, undo and redo for a 3-file plan on a 20k-file (~90 MB) workspace.

Prints, in one run on the same generated workspace (a git repository with a .gitignore):
- the Cline-style full-tree shadow snapshot (`git add -A && git commit` with a separate
  GIT_DIR / GIT_WORK_TREE): first snapshot, snapshot after one changed file, restore;
- ours (actions.checkpoints): checkpoint = begin_plan + commit of a plan touching 3 files
  (2 updates, 1 creation; the plan's own file writes excluded), undo, redo; medians and
  maxima over RUNS plans, with the number of git subprocesses per operation;
- the store size after 100 plans (keep=50, the default, and keep=100: nothing pruned),
  against the bytes those plans changed (sum of the new contents they wrote).
Usage: python bench/checkpoint.py [--files 20000] [--runs 30]. Prints a table; never asserts.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from actions.checkpoints import CheckpointStore

WORDS = [
    *[
        "def",
        "return",
        "self",
        "import",
        "from",
        "class",
        "if",
        "else",
        "for",
        "while",
        "in",
        "not",
        "and",
        "or",
        "None",
        "True",
        "False",
    ],
    *[
        "value",
        "result",
        "items",
        "config",
        "path",
        "data",
        "index",
        "count",
        "name",
        "error",
        "print",
        "yield",
        "async",
        "await",
    ],
    *[
        "raise",
        "try",
        "except",
        "with",
        "as",
        "lambda",
        "list",
        "dict",
        "set",
        "tuple",
        "str",
        "int",
        "len",
        "range",
        "open",
    ],
]
GIT_ENV = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
_git_calls = 0
_real_run = subprocess.run


def _counting_run(*args: object, **kwargs: object) -> object:
    global _git_calls
    _git_calls += 1
    return _real_run(*args, **kwargs)  # type: ignore[call-overload]


def source_text(rng: random.Random, size: int) -> bytes:
    """Code-like text (compresses like source files do)."""
    lines: list[str] = []
    total = 0
    while total < size:
        indent = "    " * rng.randrange(3)
        line = indent + " ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 11)))
        line += f"  # {rng.randrange(10**6)}"
        lines.append(line)
        total += len(line) + 1
    return ("\n".join(lines) + "\n").encode()


def generate(ws: Path, files: int, total_bytes: int) -> list[str]:
    rng = random.Random(7)
    per_file = total_bytes // files
    paths = []
    for number in range(files):
        rel = f"pkg{number // 2000}/mod{number // 100}/file{number}.py"
        target = ws / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source_text(rng, rng.randrange(per_file // 2, per_file * 3 // 2)))
        paths.append(rel)
    subprocess.run(["git", "init", "-q"], cwd=ws, env=GIT_ENV, check=True)
    (ws / ".gitignore").write_text("*.log\nbuild/\n")
    return paths


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def cline_style(ws: Path, shadow: Path, changed: str) -> dict[str, float]:
    env = {**GIT_ENV, "GIT_DIR": str(shadow), "GIT_WORK_TREE": str(ws)}
    ident = ["-c", "user.email=b@b", "-c", "user.name=bench", "-c", "core.hooksPath=/dev/null"]

    def git(*args: str) -> None:
        subprocess.run(["git", *ident, *args], cwd=ws, env=env, check=True, capture_output=True)

    git("init", "-q")
    first = timed(lambda: (git("add", "-A"), git("commit", "-q", "-m", "snapshot 1")))
    (ws / changed).write_bytes((ws / changed).read_bytes() + b"# changed\n")
    again = timed(lambda: (git("add", "-A"), git("commit", "-q", "-m", "snapshot 2")))
    restore = timed(lambda: git("reset", "-q", "--hard", "HEAD~1"))
    return {"first": first, "after one change": again, "restore": restore}


@contextmanager
def counting() -> Iterator[list[int]]:
    global _git_calls
    _git_calls = 0
    box = [0]
    subprocess.run = _counting_run  # type: ignore[assignment]
    try:
        yield box
    finally:
        subprocess.run = _real_run
        box[0] = _git_calls


def one_plan(
    store: CheckpointStore, rng: random.Random, paths: list[str], name: str
) -> tuple[float, int, int]:
    """Run a 3-file plan; returns (checkpoint seconds, git calls, bytes written)."""
    chosen = rng.sample(paths, 2)
    new_file = f"pkg0/new/{name}.py"
    contents = {p: source_text(rng, 4500) for p in [*chosen, new_file]}
    with counting() as calls:
        start = time.perf_counter()
        plan = store.begin_plan(description=name, session_id="bench", paths=list(contents))
        elapsed = time.perf_counter() - start
    for path, data in contents.items():  # the plan's own writes: not checkpoint cost
        target = store.workspace / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    with counting() as more:
        elapsed += timed(plan.commit)
    return elapsed, calls[0] + more[0], sum(len(data) for data in contents.values())


def ours(ws: Path, store_dir: Path, paths: list[str], runs: int) -> dict[str, list[float]]:
    rng = random.Random(11)
    store = CheckpointStore(ws, store_dir=store_dir)
    figures: dict[str, list[float]] = {"checkpoint": [], "undo": [], "redo": []}
    calls: dict[str, int] = {"checkpoint": 0, "undo": 0, "redo": 0}
    for n in range(runs):
        seconds, git_calls, _ = one_plan(store, rng, paths, f"plan{n}")
        figures["checkpoint"].append(seconds)
        calls["checkpoint"] = git_calls
        for kind in ("undo", "redo"):
            with counting() as count:
                figures[kind].append(timed(getattr(store, kind)))
            calls[kind] = count[0]
    store.undo()  # leave the workspace as generated
    figures["git calls"] = [float(calls[k]) for k in ("checkpoint", "undo", "redo")]
    return figures


def store_size(ws: Path, tmp: Path, paths: list[str], keep: int) -> tuple[int, int, int]:
    """(apparent bytes, bytes on disk, bytes the 100 plans wrote) of a store after 100 plans."""
    rng = random.Random(keep)
    store_dir = tmp / f"size-store-{keep}"
    store = CheckpointStore(ws, store_dir=store_dir, keep=keep)
    written = sum(one_plan(store, rng, paths[:300], f"k{keep}-{n}")[2] for n in range(100))
    apparent = disk = 0
    for entry in store_dir.rglob("*"):
        if entry.is_file():
            info = entry.stat()
            apparent += info.st_size
            disk += info.st_blocks * 512
    for _ in range(min(keep, 100)):
        store.undo()
    return apparent, disk, written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--megabytes", type=int, default=90)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-ckpt-"))
    try:
        ws = tmp / "ws"
        ws.mkdir()
        start = time.perf_counter()
        paths = generate(ws, args.files, args.megabytes * 2**20)
        size = sum(f.stat().st_size for f in ws.rglob("*.py"))
        print(
            f"workspace: {len(paths)} files, {size / 2**20:.1f} MB, git repository "
            f"(generated in {time.perf_counter() - start:.1f} s)\n"
        )
        cline = cline_style(ws, tmp / "shadow.git", paths[0])
        mine = ours(ws, tmp / "store", paths, args.runs)
        print(f"{'operation':<44}{'median ms':>10}{'max ms':>10}{'git calls':>10}")
        for name, seconds in cline.items():
            print(
                f"{'full-tree shadow snapshot: ' + name:<44}{seconds * 1000:>10.1f}{'':>10}{'':>10}"
            )
        for index, name in enumerate(("checkpoint", "undo", "redo")):
            values = mine[name]
            label = f"ours, 3-file plan: {name}"
            print(
                f"{label:<44}{statistics.median(values) * 1000:>10.2f}"
                f"{max(values) * 1000:>10.2f}{mine['git calls'][index]:>10.0f}"
            )
        ratio = statistics.median(mine["checkpoint"]) / cline["after one change"]
        print(f"\nours / full-tree (checkpoint vs snapshot after one change): {ratio:.3f}x")
        ratio = statistics.median(mine["undo"]) / cline["restore"]
        print(f"ours / full-tree (undo vs restore): {ratio:.3f}x\n")
        print(
            f"{'store after 100 plans':<28}{'apparent KB':>12}{'on disk KB':>12}"
            f"{'plans wrote KB':>16}{'apparent/wrote':>16}"
        )
        for keep in (50, 100):
            apparent, disk, written = store_size(ws, tmp, paths, keep)
            print(
                f"{f'keep={keep}':<28}{apparent / 1024:>12.1f}{disk / 1024:>12.1f}"
                f"{written / 1024:>16.1f}{apparent / written:>16.2f}"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
