"""search_files over FILES small Python files (a pattern found nowhere, so every line of every
file is searched): milliseconds, min / median / max of RUNS calls.

    python bench/search_files_speed.py              # this tree
    python bench/search_files_speed.py --tree DIR   # another checkout, to compare

Each file is read through `Workspace.resolve_listed` (the symlink and secret checks) before
its text is searched.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

FILES = 3000
RUNS = 5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--runs", type=int, default=RUNS)
    options = parser.parse_args()
    sys.path.insert(0, str(options.tree))
    from actions.paths import Workspace
    from actions.tools.search_files import SearchFiles

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        body = "".join(f"def f{j}(x):\n    return x * {j}  # value\n" for j in range(40))
        for i in range(FILES):
            package = root / f"pkg{i % 30}"
            package.mkdir(exist_ok=True)
            (package / f"m{i}.py").write_text(body)
        tool = SearchFiles(Workspace(root))
        times = []
        for _ in range(options.runs):
            start = time.perf_counter()
            asyncio.run(tool.execute({"pattern": "zzz_absent"}))
            times.append((time.perf_counter() - start) * 1000)
    print(f"tree: {options.tree}; {FILES} files of 80 lines, {options.runs} runs")
    print(f"search_files ms: {min(times):.0f} / {statistics.median(times):.0f} / {max(times):.0f}")


if __name__ == "__main__":
    main()
