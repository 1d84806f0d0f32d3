"""Cost of a checkpoint, undo and redo for a 3-file plan, at 1k / 20k / 100k committed files.

For each size, a workspace whose files are all committed to a real git repository (with a
.gitignore at the root and one nested), in one run:
- ours (actions.checkpoints): checkpoint = open the store (as each chat turn does) +
  begin_plan + commit of a plan touching 3 files (2 updates, 1 creation; the plan's own
  writes excluded), undo, redo: min / median / max over RUNS plans, and the number of
  git subprocesses per operation;
- references measured in the same run: the `git check-ignore` subprocess the checkpoint
  used to run (it reads the whole index), and up to 20k files the Cline-style full-tree
  shadow snapshot (`git add -A && git commit` with a separate GIT_DIR / GIT_WORK_TREE);
- writing one checkpoint's objects: our in-process pack writer vs GitPython (gitdb) loose
  objects, the reason the pack writer stays;
- the store size after 100 plans (keep=50, the default, and keep=100).
Goal (issue 10 item 5): a checkpoint <= 20 ms and flat from 1k to 100k files.
Usage: python bench/checkpoint.py [--sizes 1000,20000,100000] [--runs 7]. Never asserts.
"""

from __future__ import annotations

import _posixsubprocess
import argparse
import io
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
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from actions.checkpoints import CheckpointStore
from actions.checkpoints.objects import ObjectStore, TreeItem, blob_sha, commit_object, tree_objects

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
_real_fork_exec = _posixsubprocess.fork_exec


def _counting_fork_exec(*args: Any, **kwargs: Any) -> Any:
    """Every child process the subprocess module starts (GitPython's included)."""
    global _git_calls
    _git_calls += 1
    return _real_fork_exec(*args, **kwargs)


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


def generate(ws: Path, files: int, average: int) -> list[str]:
    """`files` code-like files of ~`average` bytes, committed to a git repository."""
    rng = random.Random(7)
    paths = []
    for number in range(files):
        rel = f"pkg{number // 2000}/mod{number // 100}/file{number}.py"
        target = ws / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source_text(rng, rng.randrange(average // 2, average * 3 // 2)))
        paths.append(rel)
    (ws / ".gitignore").write_text("*.log\nbuild/\n")
    (ws / "pkg0" / ".gitignore").write_text("*.tmp\n!keep.tmp\n")
    ident = ["-c", "user.email=b@b", "-c", "user.name=bench", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "-A"], [*ident, "commit", "-q", "-m", "base"]):
        subprocess.run(["git", *args], cwd=ws, env=GIT_ENV, check=True)
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
    _posixsubprocess.fork_exec = _counting_fork_exec
    try:
        yield box
    finally:
        _posixsubprocess.fork_exec = _real_fork_exec
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
        store = CheckpointStore(ws, store_dir=store_dir)  # as each chat turn opens it
        seconds, git_calls, _ = one_plan(store, rng, paths, f"plan{n}")
        figures["checkpoint"].append(seconds)
        calls["checkpoint"] = max(calls["checkpoint"], git_calls)
        for kind in ("undo", "redo"):
            with counting() as count:
                figures[kind].append(timed(getattr(store, kind)))
            calls[kind] = max(calls[kind], count[0])
    store.undo()  # leave the workspace as generated
    figures["git calls"] = [float(calls[k]) for k in ("checkpoint", "undo", "redo")]
    return figures


def check_ignore_subprocess(ws: Path, paths: list[str], runs: int) -> list[float]:
    """The previous way: one `git check-ignore` per checkpoint (it reads the whole index)."""
    data = b"".join(p.encode() + b"\0" for p in paths[:3])
    command = ["git", "check-ignore", "-z", "--stdin"]
    return [
        timed(lambda: subprocess.run(command, cwd=ws, env=GIT_ENV, input=data, capture_output=True))
        for _ in range(runs)
    ]


def checkpoint_objects(rng: random.Random) -> list[tuple[bytes, bytes]]:
    """What one 3-file checkpoint stores: 2 pre + 3 post blobs, its trees and commit."""
    blobs = [source_text(rng, 4500) for _ in range(5)]
    items = [
        TreeItem(f"{side}/pkg0/mod{n}/f{n}.py", blob_sha(b))
        for n, b in enumerate(blobs)
        for side in ("pre" if n < 2 else "post",)
    ]
    _tree, trees = tree_objects(items)
    commit = commit_object(_tree, "bench", time.time())
    return [*((b"blob", b) for b in blobs), *trees, commit]


def object_writers(tmp: Path, runs: int) -> dict[str, list[float]]:
    """Writing one checkpoint's objects: our in-process pack vs GitPython (gitdb) loose objects."""
    import git

    rng = random.Random(5)
    ours_store = ObjectStore(tmp / "writer-ours.git")
    ours_store.init()
    theirs = git.Repo.init(tmp / "writer-gitpython.git", bare=True)
    figures: dict[str, list[float]] = {"ours: one pack": [], "gitpython: loose objects": []}
    for _ in range(runs):
        objects = checkpoint_objects(rng)
        figures["ours: one pack"].append(timed(partial(ours_store.write_pack, objects)))
        figures["gitpython: loose objects"].append(timed(partial(loose, theirs, objects)))
    return figures


def loose(repo: Any, objects: list[tuple[bytes, bytes]]) -> None:
    from gitdb import IStream

    for kind, body in objects:
        repo.odb.store(IStream(kind.decode(), len(body), io.BytesIO(body)))


def spread(values: list[float]) -> str:
    """min / median / max in milliseconds."""
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"{low * 1000:>9.2f}{mid * 1000:>9.2f}{high * 1000:>9.2f}"


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


def scale_run(tmp: Path, files: int, average: int, runs: int) -> dict[str, list[float]]:
    ws = tmp / f"ws-{files}"
    ws.mkdir()
    start = time.perf_counter()
    paths = generate(ws, files, average)
    print(
        f"  {files} files committed to git ({files * average / 2**20:.0f} MB) "
        f"in {time.perf_counter() - start:.1f} s",
        flush=True,
    )
    figures = ours(ws, tmp / f"store-{files}", paths, runs)
    figures["git check-ignore (before)"] = check_ignore_subprocess(ws, paths, runs)
    if files <= 20_000:
        cline = cline_style(ws, tmp / f"shadow-{files}.git", paths[0])
        figures.update({f"full-tree snapshot: {k}": [v] for k, v in cline.items()})
    figures["paths"] = [float(len(paths))]
    shutil.rmtree(ws, ignore_errors=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,20000,100000", help="files per workspace")
    parser.add_argument("--average", type=int, default=1000, help="average file size, bytes")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    tmp = Path(tempfile.mkdtemp(prefix="bench-ckpt-"))
    results: dict[int, dict[str, list[float]]] = {}
    try:
        print(f"workspaces (git repositories, every file committed), {args.runs} runs each:")
        for files in sizes:
            results[files] = scale_run(tmp, files, args.average, args.runs)
        print(f"\n{'operation (ms)':<44}{'files':>8}{'min':>9}{'median':>9}{'max':>9}  calls")
        for files, figures in results.items():
            for index, name in enumerate(("checkpoint", "undo", "redo")):
                label = f"ours, 3-file plan: {name}"
                calls = int(figures["git calls"][index])
                print(f"{label:<44}{files:>8}{spread(figures[name])}{calls:>7}")
            name = "git check-ignore (before)"
            print(f"{'reference: ' + name:<44}{files:>8}{spread(figures[name])}{1:>7}")
            for name, values in figures.items():
                if name.startswith("full-tree"):
                    print(f"{'reference: ' + name:<44}{files:>8}{'':>18}{values[0] * 1000:>9.1f}")
        medians = [statistics.median(results[f]["checkpoint"]) for f in sizes]
        print(
            f"\ngoal: checkpoint <= 20 ms median at every size, flat from {sizes[0]} to "
            f"{sizes[-1]} files"
        )
        worst = max(medians) * 1000
        print(
            f"      worst median {worst:.2f} ms ({'met' if worst <= 20 else 'NOT met'}); "
            f"largest / smallest workspace: {medians[-1] / medians[0]:.2f}x"
        )
        print(
            f"\n{'writing one checkpoint' + chr(39) + 's objects (ms)':<44}{'':>8}"
            f"{'min':>9}{'median':>9}{'max':>9}"
        )
        for name, values in object_writers(tmp, max(args.runs, 20)).items():
            print(f"{name:<44}{'':>8}{spread(values)}")
        print(
            f"\n{'store after 100 plans':<28}{'apparent KB':>12}{'on disk KB':>12}"
            f"{'plans wrote KB':>16}{'apparent/wrote':>16}"
        )
        ws = tmp / "ws-size"
        ws.mkdir()
        paths = generate(ws, 1000, args.average)
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
