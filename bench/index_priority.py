"""First plan turn while the workspace index builds: index on, index off, and a baseline tree.

A generated workspace (``--files`` Python modules and markdown notes, default 20,000) is
opened by a fresh server (a fresh cache: the index is built from nothing, as on a first open)
and, right after ``initialized``, one ``agent/chat`` turn runs a scripted three-file plan
against the fake LLM (list_files, read_file, start_multi_file, two continue_multi_file, the
answer). Its time from request to result is the figure. Modes: ``on`` (the index builds in the
background meanwhile), ``off`` (``index: false``), and with ``--baseline TREE`` the same ``on``
turn served by another source tree (e.g. ``/work/main``: before this change). Prints
min / median / max over ``--runs`` runs per mode and the load average (compare only runs
made on an equally loaded machine). Never asserts.

    python bench/index_priority.py [--files 20000] [--runs 3] [--baseline /work/main]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.conversations import FULL_CONVERSATION, seed_project
from tests.e2e.rawclient import RawClient

ROOT = Path(__file__).resolve().parents[1]


def generate(root: Path, files: int) -> None:
    """``files`` files: three Python modules for every markdown note, in 100-file folders."""
    seed_project(root)
    for number in range(files):
        folder = root / "pkg" / f"part{number // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        if number % 4 == 3:
            text = f"# Note {number}\n\n" + f"The module {number} handles case {number}. " * 30
            (folder / f"note{number}.md").write_text(text + "\n")
        else:
            body = "".join(
                f"def function_{number}_{k}(value):\n    return value * {k} + {number}\n\n\n"
                for k in range(12)
            )
            (folder / f"module{number}.py").write_text(body)


def start_fakellm(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    port_file = folder / "port"
    script = folder / "script.json"
    script.write_text(json.dumps({"replies": FULL_CONVERSATION}))
    command = [sys.executable, "-m", "tests.fakellm", "--script", str(script)]
    process = subprocess.Popen(
        [*command, "--port-file", str(port_file)],
        stdout=subprocess.DEVNULL,
        cwd=ROOT,
    )
    for _ in range(600):
        if port_file.exists() and port_file.read_text().strip():
            return process, f"http://127.0.0.1:{port_file.read_text().strip()}"
        time.sleep(0.05)
    raise RuntimeError("the fake LLM did not start")


def reset_script(base: str) -> None:
    body = json.dumps({"replies": FULL_CONVERSATION}).encode()
    request = urllib.request.Request(base + "/_control/script", data=body, method="POST")
    urllib.request.urlopen(request, timeout=10).read()


async def one_turn(template: Path, folder: Path, base: str, index: bool, tree: Path) -> float:
    """A fresh copy of the workspace, a fresh cache, a fresh server: the plan turn's seconds."""
    workspace = folder / "ws"
    subprocess.run(["rm", "-rf", str(workspace), str(folder / "cache")], check=True)
    subprocess.run(["cp", "-r", str(template), str(workspace)], check=True)
    reset_script(base)
    os.environ.update(XDG_CACHE_HOME=str(folder / "cache"), PYTHONPATH=str(tree))
    os.environ.pop("AGENT_LS_INDEX", None)
    client = await RawClient.start(cwd=workspace)
    settings = {"provider": "openai", "baseUrl": base + "/v1", "model": "fake", "index": index}
    await client.initialize(workspace, settings)
    start = time.perf_counter()
    answer = await client.request("agent/chat", {"message": "add a greeting"}, timeout=600)
    elapsed = time.perf_counter() - start
    plan = answer.get("result", {}).get("plan") or {}
    assert len(plan.get("applied", [])) == 3, answer
    await client.close()
    return elapsed


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another source tree (before the change)")
    args = parser.parse_args()
    modes: list[tuple[str, bool, Path]] = [("index on", True, ROOT), ("index off", False, ROOT)]
    if args.baseline:
        modes.append((f"on, {args.baseline}", True, args.baseline.resolve()))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        template = folder / "template"
        generate(template, args.files)
        fakellm, base = start_fakellm(folder)
        load = os.getloadavg()[0]
        times: dict[str, list[float]] = {name: [] for name, _, _ in modes}
        try:
            for _ in range(args.runs):  # modes interleaved: a load change hits them all
                for name, index, tree in modes:
                    times[name].append(await one_turn(template, folder, base, index, tree))
        finally:
            fakellm.terminate()
            fakellm.wait(timeout=10)
    print(
        f"first plan turn (6 model replies, 3 files) right after initialized, {args.files} files,"
        f" {args.runs} runs; load average {load:.2f} before, {os.getloadavg()[0]:.2f} after"
        f" ({os.cpu_count()} CPUs)"
    )
    print(f"{'mode':<40} {'seconds min / median / max':>28}")
    for name, values in times.items():
        figures = f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"
        print(f"{name:<40} {figures:>28}")


if __name__ == "__main__":
    asyncio.run(main())
