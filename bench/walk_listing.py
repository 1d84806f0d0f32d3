"""list_files' walk (a folder outside git) over FILES files in nested folders, each level
with its own .gitignore: milliseconds, min / median / max of RUNS listings.

    python bench/walk_listing.py              # this tree
    python bench/walk_listing.py --tree DIR   # another checkout, to compare

The walk matches every file and folder against the .gitignore files from its folder up to
the root (`actions/files/ignore.py`); a third of the folders are ignored and never entered.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

FILES = 20_000
RUNS = 5
RULES = "*.log\n!keep.log\nbuild/\n/tmp*\n**/cache/\n*.o\n"


def build(root: Path, files: int) -> None:
    """Folders a/b/c (3 levels, 10 wide), files spread over them, a .gitignore per folder."""
    (root / ".gitignore").write_text(RULES)
    folders = [Path(f"d{i}/e{j}/f{k}") for i in range(10) for j in range(10) for k in range(3)]
    for number, folder in enumerate(folders):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / ".gitignore").write_text(f"x{number % 7}.txt\n!keep.log\n")
        if number % 3 == 0:
            (root / folder / "build").mkdir(exist_ok=True)
            (root / folder / "build" / "out.o").write_text("o")
    for i in range(files):
        suffix = (".py", ".log", ".txt", ".o")[i % 4]
        (root / folders[i % len(folders)] / f"m{i}{suffix}").write_text("x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--files", type=int, default=FILES)
    parser.add_argument("--runs", type=int, default=RUNS)
    options = parser.parse_args()
    sys.path.insert(0, str(options.tree))
    from actions.paths import Workspace
    from actions.tools.list_files import ListFiles

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        build(root, options.files)
        tool = ListFiles(Workspace(root))
        times, listed = [], 0
        for _ in range(options.runs):
            started = time.perf_counter()
            listing = asyncio.run(tool.files())
            times.append((time.perf_counter() - started) * 1000)
            listed = len(listing.files)
            assert listing.source == "walk", listing.source
    print(f"tree: {options.tree}")
    print(f"{options.files} files, {listed} listed, {options.runs} runs")
    print("min / median / max ms")
    print(f"{min(times):.1f} / {statistics.median(times):.1f} / {max(times):.1f}")


if __name__ == "__main__":
    main()
