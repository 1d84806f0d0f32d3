"""Fuzz the reply parser and show it stays linear on pathological input. Prints; never asserts.

1. Time per MB of parse_reply on pathological replies at growing sizes (a linear parser
   keeps the ms/MB column flat).
2. The hypothesis fuzz target tests/fuzz/test_fuzz_parse.py with a long profile
   (AGENT_LS_FUZZ_EXAMPLES, default 500 here; e.g. 20000 for a night run).

Run: .venv/bin/python bench/fuzz_parse.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from parsing import StreamParser, parse_reply

ROOT = Path(__file__).resolve().parents[1]

SHAPES = {
    "[ x n": lambda n: "[" * n,
    "{ x n": lambda n: "{" * n,
    '{" x n': lambda n: '{"' * (n // 2),
    '{"a": x n': lambda n: '{"a":' * (n // 5),
    "prose {x} [1]": lambda n: "some {x} prose [1] and {'a' b} " * (n // 31),
    "unterminated string": lambda n: '{"a": "' + "x" * n,
    "backticks": lambda n: "`" * n,
    "<think> x n": lambda n: "<think>" * (n // 7),
}


def linearity() -> None:
    sizes = (10_000, 100_000, 1_000_000)
    print(f"{'input':22}" + "".join(f"{s:>14,}" for s in sizes) + "   (ms per MB)")
    for name, make in SHAPES.items():
        row = []
        for size in sizes:
            text = make(size)
            start = time.perf_counter()
            parse_reply(text)
            row.append((time.perf_counter() - start) * 1000 / (len(text) / 1e6))
        print(f"{name:22}" + "".join(f"{ms:>14.1f}" for ms in row))
    text = SHAPES['{"a": x n'](200_000)
    start = time.perf_counter()
    parser = StreamParser()
    for i in range(0, len(text), 100):
        parser.feed(text[i : i + 100])
    parser.close()
    print(
        f"\nstreamed in 100-char chunks, 200 KB of '{{\"a\":': {time.perf_counter() - start:.2f} s"
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
