"""What a chat turn pays for the folder's state: opened every turn vs. opened once.

Before the per-folder context, every turn built the checkpoint store on the event loop
(lock, git directory, crash recovery) and undo opened another one. Now `Folders` opens it
once in a worker thread and every later turn reuses it. Printed, for the same short reply
from the fake LLM (min / median / max of RUNS turns, in ms):
- the turn with the store opened on the event loop first (the old path);
- the turn with the shared context (the new path);
- opening the folder's state alone, and getting the already opened context;
- the longest the event loop stalled during each (a 1 ms heartbeat's worst gap): other
  requests (progress, didChange, cancel) wait that long.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from actions.apply import DiskApplier
from server.config import Config
from server.protocol import ProgressEvent
from server.providers.openai import OpenAIProvider
from server.turns.loop import run_turn
from server.turns.turn import ChatSession
from server.workspace import FolderContext, Folders, build_agent, open_folder
from tests.fakellm import FakeLLM

RUNS = 15
REPLY = {"content": "Sure, here is the answer. " * 8, "chunk_size": 16}


class NullSink:
    def emit(self, event: ProgressEvent) -> None:
        pass


async def stall_during(work: Callable[[], Awaitable[None]]) -> tuple[float, float]:
    """(seconds the work took, worst heartbeat gap in seconds while it ran)."""
    worst = 0.0
    done = asyncio.Event()

    async def heartbeat() -> None:
        nonlocal worst
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            worst, last = max(worst, now - last), now

    beat = asyncio.ensure_future(heartbeat())
    await asyncio.sleep(0.005)
    start = time.perf_counter()
    await work()
    took = time.perf_counter() - start
    done.set()
    await beat
    return took, worst


def row(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"{name:<44}{min(ms):>8.1f}{statistics.median(ms):>9.1f}{max(ms):>8.1f}"


async def main() -> None:
    with FakeLLM({"replies": [REPLY]}) as llm, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        (root / "app.py").write_text("print('hi')\n")
        config = Config(baseUrl=llm.base_url_openai, model="fake")
        provider = OpenAIProvider(config)
        folders = Folders()

        async def turn(folder: FolderContext) -> None:
            agent = build_agent(config, provider, folder, DiskApplier(root))
            await run_turn(agent, ChatSession("bench"), "hi", None, NullSink())

        async def old_turn() -> None:
            await turn(open_folder(root))  # what build_agent did on the loop every turn

        async def new_turn() -> None:
            await turn(await folders.get(root))

        await new_turn()  # the first opening (in a thread), then every turn reuses it
        old = [await stall_during(old_turn) for _ in range(RUNS)]
        new = [await stall_during(new_turn) for _ in range(RUNS)]
        opening = [
            await stall_during(lambda: asyncio.to_thread(open_folder, root)) for _ in range(RUNS)
        ]
        reuse = [await stall_during(lambda: folders.get(root)) for _ in range(RUNS)]
    print(f"one chat turn in a workspace folder, {RUNS} runs each (ms)")
    print(f"{'':<44}{'min':>8}{'median':>9}{'max':>8}")
    print(row("turn, store opened on the loop every turn", [t for t, _ in old]))
    print(row("turn, folder context opened once", [t for t, _ in new]))
    print(row("event-loop stall, opened every turn", [s for _, s in old]))
    print(row("event-loop stall, opened once", [s for _, s in new]))
    print(row("opening the folder's state alone", [t for t, _ in opening]))
    print(row("getting the opened context", [t for t, _ in reuse]))
    ratio = statistics.median(t for t, _ in old) / statistics.median(t for t, _ in new)
    print(f"median turn: opened every turn / opened once = {ratio:.2f}x")


if __name__ == "__main__":
    asyncio.run(main())
