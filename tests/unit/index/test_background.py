"""Index work at low priority: its threads are niced (and only they), and its batches wait
for a running chat turn."""

from __future__ import annotations

import asyncio
import os
import threading

import pytest

from actions.index.background import NICE, Yield, run_low


def priority() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="per-thread priorities: Linux")
async def test_index_threads_are_niced_and_no_other_thread_is() -> None:
    base = priority()
    assert await run_low(priority) == min(19, base + NICE)
    assert await asyncio.to_thread(priority) == base  # the request handlers' threads
    assert priority() == base


async def test_a_batch_waits_for_the_running_turn() -> None:
    foreground = Yield(wait=3600)  # the bound is not what this test is about
    await foreground.pause()  # no turn: at once
    with foreground.turn():
        waiting = asyncio.ensure_future(foreground.pause())
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert not waiting.done()
    await asyncio.wait_for(waiting, 5)


async def test_a_long_turn_lets_the_batch_go_after_the_bound() -> None:
    foreground = Yield(wait=0)
    with foreground.turn():
        await asyncio.wait_for(foreground.pause(), 5)  # bounded: never stuck behind a turn
