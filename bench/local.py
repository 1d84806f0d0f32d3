"""Embedded model: whole requests through agent-ls vs raw llama-cpp-python, and the server's RSS.

    python bench/local.py [--rounds 3] [--max-tokens 160]

Both sides use the same GGUF (the bundled SmolLM2-135M unless AGENT_LS_MODEL_PATH names
another), the same prompts (the agent's system prompt for examples/hello + a few questions),
the same grammar (the turn-start state's: tools offered, the example's files, no plan),
sampling, context and max tokens, each with its own loaded model so neither reuses the
other's prompt cache. A request is timed whole, from the call to its last chunk, as the user
waits for it. Requests run in pairs, one per side, and which side goes first alternates
(the second run of a prompt is often faster; load bursts hit both sides of a pair alike).
Prints min/median/max of the per-request times of each side and of the per-pair ratio
agent-ls / raw (1.00x: no overhead); then the real server (stdio) is started with the local
provider, answers one agent/status (which loads the model and generates) and its RSS is read.
Prints figures only; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from actions.paths import Workspace  # noqa: E402
from actions.prompt import render_system_prompt  # noqa: E402
from actions.tools import default_registry  # noqa: E402
from server.config import Config  # noqa: E402
from server.providers.base import ChatMessage  # noqa: E402
from server.providers.constraints import TurnState  # noqa: E402
from server.providers.local import (  # noqa: E402
    SAMPLING,
    LocalProvider,
    model_file,
    state_grammar,
    thread_count,
    wire_messages,
)

QUESTIONS = [
    "What does hello.py do?",
    "Create notes.txt containing: buy milk",
]
CONTEXT = 4096


def example() -> tuple[list[list[ChatMessage]], TurnState]:
    workspace = Workspace(ROOT / "examples" / "hello")
    tools = tuple(default_registry(workspace).manifests())
    system = render_system_prompt(list(tools), workspace_name=workspace.name)
    files = tuple(sorted(p.name for p in workspace.root.iterdir() if p.is_file()))
    conversations = [[ChatMessage("system", system), ChatMessage("user", q)] for q in QUESTIONS]
    return conversations, TurnState(tools, files, None)


def raw_request(llama: Any, grammar: Any, messages: list[ChatMessage], limit: int) -> float:
    started = time.perf_counter()
    stream = llama.create_chat_completion(
        messages=wire_messages(messages),
        grammar=grammar,
        max_tokens=limit,
        stream=True,
        **SAMPLING,
    )
    for _ in stream:
        pass
    return time.perf_counter() - started


async def agent_ls_request(
    provider: LocalProvider, messages: list[ChatMessage], state: TurnState
) -> float:
    started = time.perf_counter()
    async for _ in provider.stream_constrained(messages, state=state):
        pass
    return time.perf_counter() - started


def spread(values: list[float], unit: str, digits: int = 2) -> str:
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"min {low:.{digits}f}{unit}  median {mid:.{digits}f}{unit}  max {high:.{digits}f}{unit}"


async def speed(rounds: int, limit: int) -> None:
    from llama_cpp import Llama
    from llama_cpp.llama_grammar import LlamaGrammar

    config = Config(provider="local", maxTokens=limit, contextSize=CONTEXT)
    path = model_file(config)
    assert path is not None, "the local extra is not installed"
    print(f"model {path.name}, {thread_count()} threads, context {CONTEXT}, {SAMPLING}")
    conversations, state = example()
    provider = LocalProvider(config)
    await asyncio.to_thread(provider.load)
    raw = Llama(model_path=str(path), n_ctx=CONTEXT, n_threads=thread_count(), verbose=False)
    grammar = LlamaGrammar.from_string(state_grammar(state), verbose=False)
    raw_times: list[float] = []
    our_times: list[float] = []
    ratios: list[float] = []
    for round_number in range(rounds):
        for index, messages in enumerate(conversations):
            raw_first = (round_number + index) % 2 == 0
            if raw_first:
                raw_time = await asyncio.to_thread(raw_request, raw, grammar, messages, limit)
            our_time = await agent_ls_request(provider, messages, state)
            if not raw_first:
                raw_time = await asyncio.to_thread(raw_request, raw, grammar, messages, limit)
            raw_times.append(raw_time)
            our_times.append(our_time)
            ratios.append(our_time / raw_time)
    raw.close()
    pairs = len(ratios)
    print(f"whole requests under the same grammar, {pairs} pairs ({rounds} rounds x "
          f"{len(QUESTIONS)} prompts, max {limit} tokens), first side alternating:")  # fmt: skip
    print(f"  raw       {spread(raw_times, 's')}")
    print(f"  agent-ls  {spread(our_times, 's')}")
    print(f"  ratio agent-ls / raw per pair: {spread(ratios, 'x')} (target <= 1.10x)")


STATUS_LAUNCHER = """
import sys
from server.__main__ import protocol_stdout
from server.app import build_server
from server.features import status
server = build_server()
if "agent/status" not in server.protocol.fm.features:
    status.register(server)
server.start_io(sys.stdin.buffer, protocol_stdout())
"""


def memory(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) // 1024
    return fields


async def server_rss() -> None:
    from lsprotocol import types
    from pytest_lsp import client_capabilities, make_test_lsp_client

    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")}
    env["AGENT_LS_PROVIDER"] = "local"
    client = make_test_lsp_client()
    await client.start_io(sys.executable, "-c", STATUS_LAUNCHER, env=env, cwd=str(ROOT))
    await client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code"))
    )
    assert client._server is not None
    pid = client._server.pid
    before = memory(pid)
    started = time.perf_counter()
    request = client.protocol.send_request_async  # untyped in pygls
    status = await request("agent/status", {})  # type: ignore[no-untyped-call]
    elapsed = time.perf_counter() - started
    after = memory(pid)
    await client.shutdown_session()
    print(
        f"server (stdio), local provider: agent/status loaded and ran the model in {elapsed:.1f}s"
    )
    print(f"  answered: {getattr(status, 'reachable', None)}, {getattr(status, 'detail', '')}")
    print(f"  RSS before {before['VmRSS']} MiB, with the model loaded {after['VmRSS']} MiB "
          f"(peak {after['VmHWM']} MiB)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=160)
    args = parser.parse_args()
    asyncio.run(speed(args.rounds, args.max_tokens))
    asyncio.run(server_rss())


if __name__ == "__main__":
    main()
