"""Embedded model: tokens/s through agent-ls vs raw llama-cpp-python, and the server's RSS.

    python bench/local.py [--rounds 3]

Both sides use the same GGUF (the bundled SmolLM2-135M unless AGENT_LS_MODEL_PATH names
another), the same prompts (the agent's system prompt for examples/hello + a few questions),
the same grammar (the bounded action schema), sampling and context, each with its own loaded
model so neither reuses the other's prompt cache. Which side runs a prompt first alternates
by round (the second run is often faster), so use an even number of rounds.
Generation speed = tokens after the first / time from the first token to the last;
"wall" adds prompt processing. Then the real server (stdio) is started with the local
provider, answers one agent/status (which loads the model and generates), and its RSS is read.
Prints figures only; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from actions.paths import Workspace  # noqa: E402
from actions.prompt import render_system_prompt  # noqa: E402
from actions.tools import default_registry  # noqa: E402
from server.config import Config  # noqa: E402
from server.providers.base import ChatMessage  # noqa: E402
from server.providers.local import (  # noqa: E402
    SAMPLING,
    LocalProvider,
    action_grammar_schema,
    model_file,
    thread_count,
    wire_messages,
)

QUESTIONS = [
    "What does hello.py do?",
    "start_multi_file: create notes.txt containing buy milk",
    "Write a haiku about the sea",
]
CONTEXT = 4096
MAX_TOKENS = 400


@dataclass
class Run:
    tokens: int
    first_token: float  # seconds from the request to the first token
    generation: float  # seconds from the first token to the last

    @property
    def rate(self) -> float:
        return (self.tokens - 1) / self.generation if self.generation > 0 else 0.0


def conversations() -> list[list[ChatMessage]]:
    workspace = Workspace(ROOT / "examples" / "hello")
    system = render_system_prompt(
        default_registry(workspace).manifests(), workspace_name=workspace.name
    )
    return [[ChatMessage("system", system), ChatMessage("user", q)] for q in QUESTIONS]


def timed(stream: Iterator[Any], started: float) -> Run:
    first = last = started
    tokens = 0
    for part in stream:
        if not part["choices"][0].get("delta", {}).get("content"):
            continue  # the role chunk and the finish chunk carry no token
        last = time.perf_counter()
        if tokens == 0:
            first = last
        tokens += 1
    return Run(tokens, first - started, last - first)


def raw_run(llama: Any, grammar: Any, messages: list[ChatMessage]) -> Run:
    started = time.perf_counter()
    stream = llama.create_chat_completion(
        messages=wire_messages(messages),
        grammar=grammar,
        max_tokens=MAX_TOKENS,
        stream=True,
        **SAMPLING,
    )
    return timed(stream, started)


async def agent_ls_run(provider: LocalProvider, messages: list[ChatMessage]) -> Run:
    started = time.perf_counter()
    first = last = started
    tokens = 0
    async for chunk in provider.stream_chat(messages):
        if chunk.text:
            last = time.perf_counter()
            if tokens == 0:
                first = last
            tokens += 1
    return Run(tokens, first - started, last - first)


def summary(name: str, runs: list[Run]) -> float:
    tokens = sum(r.tokens - 1 for r in runs)
    generation = sum(r.generation for r in runs)
    rate = tokens / generation if generation else 0.0
    ttft = statistics.median(r.first_token for r in runs)
    print(f"  {name:9} {rate:6.1f} tokens/s   ({tokens} tokens, first token median {ttft:.2f}s)")
    return rate


async def speed(rounds: int) -> None:
    from llama_cpp import Llama
    from llama_cpp.llama_grammar import LlamaGrammar

    config = Config(provider="local", maxTokens=MAX_TOKENS, contextSize=CONTEXT)
    path = model_file(config)
    assert path is not None, "the local extra is not installed"
    print(f"model {path.name}, {thread_count()} threads, context {CONTEXT}, {SAMPLING}")
    provider = LocalProvider(config)
    await asyncio.to_thread(provider.load)
    raw = Llama(model_path=str(path), n_ctx=CONTEXT, n_threads=thread_count(), verbose=False)
    grammar = LlamaGrammar.from_json_schema(action_grammar_schema(), verbose=False)
    raw_runs: list[Run] = []
    ours: list[Run] = []
    for round_number in range(rounds):
        for messages in conversations():
            # Alternate which side goes first: the second run of a prompt is often faster.
            if round_number % 2 == 0:
                raw_runs.append(await asyncio.to_thread(raw_run, raw, grammar, messages))
            ours.append(await agent_ls_run(provider, messages))
            if round_number % 2 == 1:
                raw_runs.append(await asyncio.to_thread(raw_run, raw, grammar, messages))
    raw.close()
    print(f"generation under the action grammar, {rounds} rounds x {len(QUESTIONS)} prompts:")
    raw_rate = summary("raw", raw_runs)
    our_rate = summary("agent-ls", ours)
    if raw_rate:
        print(f"  ratio agent-ls / raw: {our_rate / raw_rate:.2f}x (target >= 0.9x)")


STATUS_LAUNCHER = """
import sys
from server.stdio import protocol_stdout
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
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    asyncio.run(speed(args.rounds))
    asyncio.run(server_rss())


if __name__ == "__main__":
    main()
