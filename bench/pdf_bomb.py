"""Peak memory of the server while its background build meets a PDF bomb.

A workspace holding one "PDF bomb" (``--inflated-mb`` MB of zeros compressed about 1000:1 by
FlateDecode: 870 MB in a 0.87 MB file by default, the size of the issue's report) and a small
markdown note is opened by a fresh server (a fresh cache). When ``agent/indexUpdated`` has
named the PDF, the server's peak resident memory (``VmHWM`` of /proc/<pid>/status) and the
seconds since ``initialized`` are read, and what the PDF became (failed and why, or indexed);
after ``--watch`` seconds without an answer the server is read and stopped all the same.
With ``--baseline TREE`` the same run is served by another source tree (e.g. ``/work/main``:
before the conversion moved to a bounded child process). Prints min / median / max over
``--runs`` runs. Never asserts.

    python bench/pdf_bomb.py [--inflated-mb 870] [--runs 3] [--baseline /work/main]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.rawclient import RawClient
from tests.pdf_docs import bomb_pdf

ROOT = Path(__file__).resolve().parents[1]


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def pdf_outcome(client: RawClient, timeout: float) -> dict[str, Any] | None:
    """The first agent/indexUpdated naming bomb.pdf (as failed or indexed); None when the
    server is still at it after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for message in client.notifications:
            params = message.get("params") or {}
            if message.get("method") == "agent/indexUpdated" and (
                "bomb.pdf" in (params.get("failed") or {}) or "bomb.pdf" in params["indexed"]
            ):
                return params  # type: ignore[no-any-return]
        await asyncio.sleep(0.05)  # a bench, not a test: polling the kept notifications
    return None


async def one_run(
    template: Path, folder: Path, tree: Path, watch: float
) -> tuple[float, float, str]:
    workspace = folder / "ws"
    subprocess.run(["rm", "-rf", str(workspace), str(folder / "cache")], check=True)
    subprocess.run(["cp", "-r", str(template), str(workspace)], check=True)
    os.environ.update(XDG_CACHE_HOME=str(folder / "cache"), PYTHONPATH=str(tree))
    client = await RawClient.start(cwd=workspace)
    await client.initialize(workspace, {"indexSummaries": False})
    start = time.perf_counter()
    params = await pdf_outcome(client, watch)
    elapsed = time.perf_counter() - start
    peak = peak_rss_mb(client.process.pid)
    for reader in (client._reader, client._stderr):  # the server is killed: stop reading
        reader.cancel()
    client.process.kill()  # a baseline server may be converting for many minutes more
    await client.process.wait()
    if params is None:
        return peak, elapsed, f"still converting after {watch:.0f} s"
    failed = (params.get("failed") or {}).get("bomb.pdf")
    return peak, elapsed, f"failed: {failed}" if failed else "indexed"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inflated-mb", type=int, default=870)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--watch", type=float, default=120, help="seconds to wait at most")
    parser.add_argument("--baseline", type=Path, help="another source tree (before the change)")
    args = parser.parse_args()
    trees = [("this tree", ROOT)]
    if args.baseline:
        trees.append((str(args.baseline), args.baseline.resolve()))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        template = folder / "template"
        template.mkdir()
        size = bomb_pdf(template / "bomb.pdf", args.inflated_mb).stat().st_size
        (template / "notes.md").write_text("# Notes\n\nThe kumquat is a small citrus.\n")
        load = os.getloadavg()[0]
        results: dict[str, list[tuple[float, float, str]]] = {name: [] for name, _ in trees}
        for _ in range(args.runs):
            for name, tree in trees:
                results[name].append(await one_run(template, folder, tree, args.watch))
    print(
        f"server peak RSS while indexing a {size / 2**20:.2f} MB PDF inflating to"
        f" {args.inflated_mb} MB, {args.runs} runs; load average {load:.2f} before,"
        f" {os.getloadavg()[0]:.2f} after"
    )
    header = f"{'tree':<24} {'peak RSS MB min/median/max':>28} {'seconds min/median/max':>24}"
    print(header + "  outcome")
    for name, runs in results.items():
        peaks = [run[0] for run in runs]
        times = [run[1] for run in runs]
        print(f"{name:<24} {fmt(peaks, 0):>28} {fmt(times, 2):>24}  {runs[-1][2]}")


def fmt(values: list[float], digits: int) -> str:
    figures = (min(values), statistics.median(values), max(values))
    return " / ".join(f"{value:.{digits}f}" for value in figures)


if __name__ == "__main__":
    asyncio.run(main())
