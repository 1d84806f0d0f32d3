"""Server overhead of one agent/chat turn, per number of streamed deltas.

The fake LLM runs in its own process (`python -m tests.fakellm`); a lean raw JSON-RPC client
(tests/e2e/rawclient.py, no pygls) drives `python -m server` over stdio. For each delta count
(1 / 100 / 200 deltas of 8 characters) every sample is a pair, in alternating order: the same
reply streamed straight from the fake LLM with httpx (the reference), and one agent/chat turn.
Overhead = turn - reference. Prints p50 and p95 of the overhead per run, and min/median/max
over RUNS runs, against the goal (p50 <= 5 ms at 200 deltas), and the machine's load
average (the figures are only comparable on a quiet machine). The server stores its
sessions in the run's temporary folder.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.rawclient import RawClient

ROOT = Path(__file__).resolve().parents[1]
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
SAMPLES = int(os.environ.get("BENCH_SAMPLES", "40"))
DELTAS = (1, 100, 200)
CHUNK = 8
GOAL_MS = 5.0


def script() -> dict[str, object]:
    rules = [
        {"match": f"deltas-{n}-", "reply": {"content": "abcdefg " * n, "chunk_size": CHUNK}}
        for n in DELTAS
    ]
    return {"rules": rules}


def start_fakellm(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    script_file = folder / "script.json"
    script_file.write_text(json.dumps(script()))
    port_file = folder / "port"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fakellm",
            "--script",
            str(script_file),
            "--port-file",
            str(port_file),
        ],
        stdout=subprocess.DEVNULL,
        cwd=ROOT,
    )
    for _ in range(600):
        if port_file.exists():
            return process, f"http://127.0.0.1:{port_file.read_text().strip()}/v1"
        time.sleep(0.05)
    raise RuntimeError("the fake LLM did not start")


async def reference(http: httpx.AsyncClient, base_url: str, n: int) -> float:
    body = {
        "model": "fake",
        "stream": True,
        "messages": [{"role": "user", "content": f"deltas-{n}-"}],
    }
    start = time.perf_counter()
    async with http.stream("POST", base_url + "/chat/completions", json=body) as response:
        async for _ in response.aiter_lines():
            pass
    return time.perf_counter() - start


async def turn(client: RawClient, n: int) -> float:
    start = time.perf_counter()
    answer = await client.request("agent/chat", {"message": f"deltas-{n}-"})
    elapsed = time.perf_counter() - start
    assert answer["result"]["text"] == "abcdefg " * n, answer
    return elapsed


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def one_run(
    client: RawClient, http: httpx.AsyncClient, base_url: str
) -> dict[int, tuple[float, float]]:
    figures = {}
    for n in DELTAS:
        overheads = []
        for index in range(SAMPLES):
            if index % 2:
                ref = await reference(http, base_url, n)
                lsp = await turn(client, n)
            else:
                lsp = await turn(client, n)
                ref = await reference(http, base_url, n)
            overheads.append((lsp - ref) * 1000)
        figures[n] = (percentile(overheads, 0.5), percentile(overheads, 0.95))
    return figures


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        fakellm, base_url = start_fakellm(folder)
        workspace = folder / "ws"
        workspace.mkdir()
        os.environ["AGENT_LS_SESSIONS_DIR"] = str(folder / "sessions")
        load_before = os.getloadavg()[0]
        try:
            client = await RawClient.start(cwd=workspace)
            await client.initialize(
                workspace, {"provider": "openai", "baseUrl": base_url, "model": "fake"}
            )
            async with httpx.AsyncClient(trust_env=False) as http:
                for n in DELTAS:  # warm-up: imports, connections
                    await turn(client, n)
                    await reference(http, base_url, n)
                runs = [await one_run(client, http, base_url) for _ in range(RUNS)]
            await client.close()
        finally:
            fakellm.terminate()
            fakellm.wait(timeout=10)
    print(
        f"agent/chat server overhead (turn - raw fake-LLM stream), "
        f"{SAMPLES} pairs per run, {RUNS} runs; "
        f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after "
        f"({os.cpu_count()} CPUs)"
    )
    print(f"{'deltas':>6}  {'p50 ms min/median/max':>26}  {'p95 ms min/median/max':>26}")
    for n in DELTAS:
        p50s = [run[n][0] for run in runs]
        p95s = [run[n][1] for run in runs]
        print(f"{n:>6}  {fmt(p50s):>26}  {fmt(p95s):>26}")
    worst = statistics.median(run[200][0] for run in runs)
    verdict = "meets" if worst <= GOAL_MS else "MISSES"
    print(
        f"goal: p50 <= {GOAL_MS} ms at 200 deltas: median p50 {worst:.2f} ms ({verdict} the goal)"
    )


def fmt(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


if __name__ == "__main__":
    asyncio.run(main())
