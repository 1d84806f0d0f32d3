"""Peak memory of read_file and search_files on a huge one-line file.

A file of SIZE_MB megabytes without a line break (a minified bundle) is written in 1 MB
chunks. Each run starts a fresh Python process (so each peak is its own) that imports the
tools, notes its peak RSS (VmHWM), runs one tool call and notes the peak again. Printed per
call: peak RSS before and after the call and the growth, in MB, min / median / max of RUNS.

    python bench/read_file_memory.py              # this tree
    python bench/read_file_memory.py --tree DIR   # another checkout (e.g. before the fix)

search_files skips files over its 2 MB limit, so it is also measured on a 2 MB one-line file
(the largest it reads) with the match near the end.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

RUNS = 5
SIZE_MB = 200
MB = 2**20

CHILD = r"""
import asyncio, json, sys
from pathlib import Path

def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024

from actions.paths import Workspace
from actions.tools.read_file import ReadFile
from actions.tools.search_files import SearchFiles

root, tool, args = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
workspace = Workspace(root)
runner = ReadFile(workspace) if tool == "read_file" else SearchFiles(workspace)
before = peak()
result = asyncio.run(runner.execute(args))
print(json.dumps({"before": before, "after": peak(), "chars": len(result.text)}))
"""

CALLS = [
    ("read_file", {"path": "/huge.min.js", "start_line": 1, "end_line": 1}),
    ("read_file", {"path": "/huge.min.js"}),
    ("search_files", {"pattern": "needle", "path": "/wide.min.js"}),
]


def one_line(path: Path, size: int, needle: bool = False) -> None:
    chunk = b"abcdefgh" * (MB // 8)
    with open(path, "wb") as handle:
        for start in range(0, size, MB):
            handle.write(chunk[: min(MB, size - start)])
        if needle:
            handle.seek(size - 100)
            handle.write(b"needle")


def measure(tree: Path, root: Path, tool: str, args: dict[str, object]) -> dict[str, int]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), tool, json.dumps(args)],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,  # `-c` puts the working directory first on sys.path: not a tree
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
    ).stdout
    result: dict[str, int] = json.loads(out)
    return result


def spread(values: list[float]) -> str:
    return f"{min(values):8.1f} {statistics.median(values):8.1f} {max(values):8.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--size-mb", type=int, default=SIZE_MB)
    parser.add_argument("--runs", type=int, default=RUNS)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        one_line(root / "huge.min.js", options.size_mb * MB)
        one_line(root / "wide.min.js", 2 * MB - 1024, needle=True)
        print(f"tree: {options.tree}; huge.min.js: {options.size_mb} MB, wide.min.js: 2 MB")
        print(f"peak RSS in MB over {options.runs} runs (min / median / max)")
        print(f"{'call':68} {'before':>26} {'after':>26} {'growth':>26} {'result chars':>12}")
        for tool, args in CALLS:
            runs = [measure(options.tree, root, tool, args) for _ in range(options.runs)]
            before = [r["before"] / MB for r in runs]
            after = [r["after"] / MB for r in runs]
            growth = [a - b for a, b in zip(after, before, strict=True)]
            call = f"{tool} {json.dumps(args)}"
            print(
                f"{call:68} {spread(before)} {spread(after)} {spread(growth)} {runs[0]['chars']:12}"
            )


if __name__ == "__main__":
    main()
