"""Overhead of one agent/chat turn above the fake LLM's own time.

Prints, for the same scripted reply: the raw streamed HTTP request (httpx, no agent-ls),
one turn in-process (provider + agent loop, what `agent-ls chat` runs), and one turn
through a real LSP connection to `python -m server` over stdio. Medians of N runs.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

import httpx
from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.agent import Agent, run_turn
from server.config import Config
from server.providers.openai import OpenAIProvider
from server.session import ChatSession
from server.workspace import build_agent
from tests.fakellm import FakeLLM

RUNS = 30
LATENCIES: dict[str, list[float]] = {}
REPLY = {"content": "The quick brown fox jumps over the lazy dog. " * 20, "chunk_size": 8}


class NullSink:
    def emit(self, kind: object, **_: object) -> None:
        pass


async def raw_http(llm: FakeLLM) -> float:
    body = {"model": "fake", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    async with httpx.AsyncClient(trust_env=False) as client:
        start = time.perf_counter()
        async with client.stream("POST", llm.base_url_openai + "/chat/completions", json=body) as r:
            async for _ in r.aiter_lines():
                pass
        return time.perf_counter() - start


async def in_process(agent: Agent) -> float:
    start = time.perf_counter()
    await run_turn(agent, ChatSession("bench"), "hi", None, NullSink())
    return time.perf_counter() - start


async def over_lsp(llm: FakeLLM, runs: int) -> list[float]:
    client = LanguageClient("bench", "0")
    client.feature("agent/chatProgress")(lambda *_: None)
    client.feature("workspace/configuration")(lambda *_: [None])
    await client.start_io(sys.executable, "-m", "server")
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            initialization_options={"agentLs": {"baseUrl": llm.base_url_openai, "model": "f"}},
        )
    )
    client.initialized(types.InitializedParams())
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await client.protocol.send_request_async("agent/chat", {"message": "hi"})
        times.append(time.perf_counter() - start)
    llm.set_script({"replies": [{"content": "x" * 4000, "chunk_size": 4, "delay_ms": 5}]})
    cancels = []
    for index in range(runs // 3):
        request = asyncio.ensure_future(
            client.protocol.send_request_async(
                "agent/chat", {"message": "slow"}, msg_id=f"c{index}"
            )
        )
        await asyncio.sleep(0.1)  # let the reply start streaming
        start = time.perf_counter()
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=f"c{index}"))
        try:
            await request
        except Exception:  # RequestCancelled is the expected answer
            cancels.append(time.perf_counter() - start)
    LATENCIES["cancel"] = cancels
    llm.set_script({"replies": [REPLY]})
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return times


async def main() -> None:
    with FakeLLM({"replies": [REPLY]}) as llm:
        raw = [await raw_http(llm) for _ in range(RUNS)]
        config = Config(baseUrl=llm.base_url_openai, model="fake")
        agent = build_agent(config, OpenAIProvider(config), None, None)
        inproc = [await in_process(agent) for _ in range(RUNS)]
        lsp = await over_lsp(llm, RUNS)
    base = statistics.median(raw)
    print(f"one chat turn, {len(REPLY['content'])}-char reply in 8-char deltas, median of {RUNS}")
    print(f"{'path':<34}{'median ms':>10}{'overhead ms':>13}")
    for name, times in (
        ("fake LLM alone (raw httpx stream)", raw),
        ("agent-ls in-process (CLI path)", inproc),
        ("agent-ls over LSP stdio", lsp),
    ):
        median = statistics.median(times)
        print(f"{name:<34}{median * 1000:>10.2f}{(median - base) * 1000:>13.2f}")
    cancels = [t * 1000 for t in LATENCIES["cancel"]]
    print(
        f"$/cancelRequest -> RequestCancelled over LSP: median {statistics.median(cancels):.1f}"
        f" ms, max {max(cancels):.1f} ms ({len(cancels)} runs, target < 200 ms)"
    )


if __name__ == "__main__":
    asyncio.run(main())
