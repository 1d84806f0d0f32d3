"""The parser's cost grows linearly with the reply, on every adversarial family.

Each family is timed at two sizes (x8 apart), whole-reply and streamed in small deltas. A
linear parser takes about 8x longer on the larger input, a quadratic one about 64x, an
exponential one never finishes. The check compares growth, not absolute time: the best of
several interleaved runs of each size (load on a shared machine slows both alike) must grow by
at most 3x the size factor. bench/fuzz_parse.py prints the absolute figures (ms per 100 KB).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from parsing import StreamParser, parse_reply
from tests.unit.parsing.families import FAMILIES

FACTOR = 8
BOUND = 3 * FACTOR
"""Allowed growth of the time for FACTOR x the input: linear is FACTOR, quadratic FACTOR**2."""
SMALL_CHARS = 5_000
FLOOR_S = 0.0005
"""Times below this are noise: the small run counts as at least this long."""


def _stream(text: str, size: int = 7) -> None:
    parser = StreamParser()
    for i in range(0, len(text), size):
        parser.feed(text[i : i + size])
    parser.close()


def _growth(run: Callable[[str], object], small: str, large: str, rounds: int = 5) -> float:
    best_small = best_large = float("inf")
    for _ in range(rounds):
        for text, which in ((small, 0), (large, 1)):
            start = time.process_time()
            run(text)
            spent = time.process_time() - start
            if which == 0:
                best_small = min(best_small, spent)
            else:
                best_large = min(best_large, spent)
    return best_large / max(best_small, FLOOR_S)


def _sizes(make: Callable[[int], str]) -> tuple[str, str]:
    per_unit = max(1, len(make(100)) // 100)
    n = max(1, SMALL_CHARS // per_unit)
    return make(n), make(FACTOR * n)


@pytest.mark.parametrize("name", FAMILIES)
def test_whole_reply_cost_grows_linearly(name: str) -> None:
    small, large = _sizes(FAMILIES[name])
    growth = _growth(parse_reply, small, large)
    assert growth <= BOUND, f"{name}: x{FACTOR} input took x{growth:.1f} time"


@pytest.mark.parametrize("name", FAMILIES)
def test_streamed_cost_grows_linearly(name: str) -> None:
    small, large = _sizes(FAMILIES[name])
    growth = _growth(_stream, small, large, rounds=3)
    assert growth <= BOUND, f"{name}: x{FACTOR} input took x{growth:.1f} time streamed"


@pytest.mark.parametrize(
    "make",
    [
        lambda n: '{"a"' + "/" * n,  # 0.75 s at n=30, 28 s at n=44 before
        lambda n: '{"a" ' + "//" * n + ":",
        lambda n: "{a" + "/* */" * n,
    ],
)
def test_short_inputs_that_were_exponential(make: Callable[[int], str]) -> None:
    # 16 -> 48 characters: an exponential path would take 2**32 times longer
    growth = _growth(lambda t: [parse_reply(t) for _ in range(200)], make(16), make(48))
    assert growth <= 3 * 3


ISSUE_21 = ["action documents opened", "text responses opened", "flat string members"]
"""Repeated document starts whose whole-reply cost grew x3-3.4 per doubling before issue 21
(a newline searched to the end of the text from each candidate): quadratic only past
~25 KB, so timed at 25 KB and 200 KB."""


@pytest.mark.parametrize("name", ISSUE_21)
def test_repeated_document_starts_grow_linearly(name: str) -> None:
    make = FAMILIES[name]
    per_unit = len(make(100)) // 100
    small, large = make(25_000 // per_unit), make(FACTOR * 25_000 // per_unit)
    growth = _growth(parse_reply, small, large, rounds=3)
    assert growth <= BOUND, f"{name}: x{FACTOR} input took x{growth:.1f} time"
