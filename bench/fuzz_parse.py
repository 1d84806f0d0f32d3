"""Fuzz the reply parser and show it stays linear on pathological input. Prints; never asserts.

1. Cost per 100 KB of parse_reply and of the stream (16-character deltas) on every
   adversarial family of tests/unit/parsing/families.py, against the goal of issue 10
   item 11 (<= 100 ms per 100 KB), and its growth for an x8 input (linear ~8).
2. The hypothesis fuzz target tests/fuzz/test_fuzz_parse.py with a long profile
   (AGENT_LS_FUZZ_EXAMPLES, default 500 here; e.g. 20000 for a night run).

Run: .venv/bin/python bench/fuzz_parse.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from parsing import StreamParser, parse_reply

ROOT = Path(__file__).resolve().parents[1]

sys.path.insert(0, str(ROOT))
from tests.unit.parsing.families import FAMILIES  # noqa: E402  (the adversarial shapes)

GOAL_MS_PER_100KB = 100.0


def _cpu(fn: Callable[[], object], runs: int = 3) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        out.append(time.process_time() - start)
    return out


def _stream(text: str, delta: int = 16) -> None:
    parser = StreamParser()
    for i in range(0, len(text), delta):
        parser.feed(text[i : i + delta])
    parser.close()


def linearity() -> None:
    """Each adversarial family at ~12.5 KB and ~100 KB: ms per 100 KB (median of 3 runs, and
    min / max), whole-reply and streamed in 16-character deltas; growth = time ratio of the
    two sizes (x8 input: linear ~8, quadratic ~64)."""
    print(f"ms per 100 KB at ~100 KB (goal <= {GOAL_MS_PER_100KB:.0f}); growth for x8 input")
    print(f"{'family':42} {'whole min/med/max':>22} {'growth':>7} {'stream med':>11} {'growth':>7}")
    worst = ("", 0.0)
    for name, make in FAMILIES.items():
        per_unit = max(1, len(make(100)) // 100)
        n = max(1, 12_500 // per_unit)
        small, large = make(n), make(8 * n)
        scale = 100_000 / len(large) * 1000
        whole = sorted(_cpu(lambda large=large: parse_reply(large)))
        whole_small = statistics.median(_cpu(lambda small=small: parse_reply(small)))
        streamed = statistics.median(_cpu(lambda large=large: _stream(large)))
        streamed_small = statistics.median(_cpu(lambda small=small: _stream(small)))
        med = statistics.median(whole)
        worst = max(worst, (name, max(med, streamed) * scale), key=lambda w: w[1])
        print(
            f"{name:42} {whole[0] * scale:6.1f}/{med * scale:6.1f}/{whole[-1] * scale:6.1f} "
            f"{med / max(whole_small, 1e-4):7.1f} {streamed * scale:11.1f} "
            f"{streamed / max(streamed_small, 1e-4):7.1f}"
        )
    ok = worst[1] <= GOAL_MS_PER_100KB
    print(
        f"worst: {worst[0]} at {worst[1]:.1f} ms per 100 KB "
        f"({'meets' if ok else 'MISSES'} the goal of {GOAL_MS_PER_100KB:.0f})"
    )


def fuzz() -> None:
    examples = os.environ.get("AGENT_LS_FUZZ_EXAMPLES", "500")
    env = {**os.environ, "AGENT_LS_FUZZ": "1", "AGENT_LS_FUZZ_EXAMPLES": examples}
    print(f"\nhypothesis fuzz target, {examples} examples per property:")
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/fuzz"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    print(f"  {lines[-1] if lines else done.stderr.strip()[-300:]}")
    print(f"  wall time {time.perf_counter() - start:.1f} s, pytest exit {done.returncode}")


if __name__ == "__main__":
    linearity()
    fuzz()
