"""`make demo` from a fresh clone (issue 23: under 5 minutes on 2 idle cores).

Clones the repository's committed HEAD into a temporary folder and times `make demo` there:
a new virtualenv, agent-ls installed alone, the demo run. pip's wheel cache is the user's
(a first install on a new machine may download more). Also prints the venv's size, since the
demo should install only what it needs. Never asserts; prints min/median/max over --runs.

Run: .venv/bin/python bench/first_run.py [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def one_run() -> tuple[float, int, str]:
    with tempfile.TemporaryDirectory() as scratch:
        clone = Path(scratch) / "agent-ls"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        started = time.perf_counter()
        done = subprocess.run(
            ["make", "demo"], cwd=clone, capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"make demo failed ({done.returncode}):\n{done.stdout[-2000:]}")
        return elapsed, folder_size(clone / ".venv"), done.stdout.rstrip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    times, sizes = [], []
    for n in range(args.runs):
        elapsed, size, last = one_run()
        times.append(elapsed)
        sizes.append(size)
        print(f"run {n + 1}: {elapsed:6.1f} s, venv {size / 1e6:.0f} MB, last line: {last[:70]}")
    print(
        f"make demo from a fresh clone: min {min(times):.1f} s, median "
        f"{statistics.median(times):.1f} s, max {max(times):.1f} s (goal: under 300 s on 2 idle"
        f" cores); venv {statistics.median(sizes) / 1e6:.0f} MB"
    )


if __name__ == "__main__":
    main()
