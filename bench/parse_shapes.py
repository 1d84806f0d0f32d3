"""Super-linear parse shapes (issue 21 item 10): ms per 100 KB of the whole-reply parse and of
the stream (16-character deltas, as a provider sends them) at 25 / 50 / 100 / 200 KB, and the
time ratio per doubling (linear ~2; the goal: <= 100 ms per 100 KB and <= 2.3x per doubling).
Prints min / median / max of several runs; never asserts.

A shape is a unit repeated up to the size (an opener of every region kind, an unclosed
string, a document start...), or random printable text. A size is skipped for a shape once a
run of the smaller size took longer than the time cap (a slow shape never hangs the bench).

Run: .venv/bin/python bench/parse_shapes.py [--runs N] [--sizes 25,50,100,200] [--only NAME]
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import string
import time
from collections.abc import Callable
from functools import partial

from parsing import StreamParser, parse_reply

GOAL_MS = 100.0
GOAL_RATIO = 2.3
CAP_S = 4.0
"""A shape whose run at one size took longer than this is not run at larger sizes."""

UNITS: dict[str, str] = {
    "action tool_call, (issue)": '{"action": "tool_call", ',
    "fence then action key (issue)": '```\n{"action":',
    "text_response opened (issue)": '{"action":"text_response","text_response":"',
    "tilde fence then { (issue)": "~~~\n{",
    'flat {"a":"b", (issue)': '{"a":"b",',
    "```json fence opener": "```json\n",
    "```json then {": "```json\n{",
    "~~~ opener": "~~~\n",
    "<tool_call> opener": "<tool_call>",
    "<tool_call> then {": '<tool_call>{"name":',
    "<think> opener": "<think>",
    "bare {": "{",
    'bare {"': '{"',
    "bare [": "[",
    "[{": "[{",
    "unclosed string key": '{"a":"',
    "unclosed string value": '"x ',
    "single-quoted opened": "{'a':'",
    "unquoted key": "{a: ",
    "name/arguments opened": '{"name":"x","arguments":{',
    "comment opened": '{"a":1 /*',
}


RANDOM = {"random printable": string.printable, "random JSON characters": '{}[]":,\\ \nab'}
JUNK_FENCES = "junk ```json bodies (15 KB)"
"""```json fences whose body opens a value then is random printable text (no backtick):
each body goes to json-repair, bounded by the reply's one repair budget."""


def _junk_fences(size: int) -> str:
    rng = random.Random(7)
    alphabet = string.printable.replace("`", "")
    parts, n = [], 0
    while n < size:
        part = "```json\n{" + "".join(rng.choices(alphabet, k=15_000)) + "\n```\n"
        parts.append(part)
        n += len(part)
    return "".join(parts)[:size]


def _random(alphabet: str, size: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    return "".join(rng.choices(alphabet, k=size))


def _text(name: str, size: int) -> str:
    if name in RANDOM:
        return _random(RANDOM[name], size)
    if name == JUNK_FENCES:
        return _junk_fences(size)
    unit = UNITS[name]
    return (unit * (size // len(unit) + 1))[:size]


def _stream(text: str, delta: int = 16) -> None:
    parser = StreamParser()
    for i in range(0, len(text), delta):
        parser.feed(text[i : i + delta])
    parser.close()


def _times(fn: Callable[[], object], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        out.append(time.process_time() - start)
    return sorted(out)


def _row(name: str, sizes: list[int], runs: int, mode: str) -> tuple[float, float]:
    """One shape in one mode: prints min/med/max ms per 100 KB per size and the ratios;
    returns (worst median ms per 100 KB, worst ratio per doubling)."""
    run: Callable[[str], object] = parse_reply if mode == "whole" else _stream
    cells, medians = [], []
    for kb in sizes:
        text = _text(name, kb * 1000)
        t = _times(partial(run, text), runs)
        scale = 100 / kb * 1000
        medians.append(statistics.median(t))
        cells.append(
            f"{t[0] * scale:5.0f}/{statistics.median(t) * scale:5.0f}/{t[-1] * scale:5.0f}"
        )
        if t[0] > CAP_S:
            break
    ratios = [b / max(a, 1e-4) for a, b in itertools.pairwise(medians)]
    worst_ms = max(m / kb * 100_000 for m, kb in zip(medians, sizes, strict=False))
    # a ratio between two sizes below 2 ms of work says nothing (timer noise)
    worst_ratio = max((r for r, a in zip(ratios, medians, strict=False) if a >= 0.002), default=0.0)
    print(
        f"{name[:34]:34} {mode:6} "
        + " ".join(f"{c:>17}" for c in cells)
        + "".join(" " * 18 for _ in range(len(sizes) - len(cells)))
        + " "
        + " ".join(f"{r:4.1f}" for r in ratios),
        flush=True,
    )
    return worst_ms, worst_ratio


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="25,50,100,200", help="KB, each double the one before")
    ap.add_argument("--only", default="", help="shapes whose name holds this")
    ap.add_argument("--mode", choices=("both", "whole", "stream"), default="both")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    names = [n for n in [*UNITS, *RANDOM, JUNK_FENCES] if args.only in n]
    modes = ["whole", "stream"] if args.mode == "both" else [args.mode]
    print(
        f"ms per 100 KB (min/median/max of {args.runs}) at {sizes} KB; ratio per doubling "
        f"(goal <= {GOAL_MS:.0f} ms, <= {GOAL_RATIO}x); stream in 16-character deltas"
    )
    print(f"{'shape':34} {'mode':6} " + " ".join(f"{str(kb) + ' KB':>17}" for kb in sizes))
    misses = []
    for name in names:
        for mode in modes:
            ms, ratio = _row(name, sizes, args.runs, mode)
            if ms > GOAL_MS or ratio > GOAL_RATIO:
                misses.append(f"{name} ({mode}): {ms:.0f} ms per 100 KB, x{ratio:.1f}")
    print(f"\n{len(misses)} miss(es) of the goal" + (":" if misses else ""))
    for miss in misses:
        print(f"  {miss}")


if __name__ == "__main__":
    main()
