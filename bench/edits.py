"""What search/replace edits save, and what applying them costs. Prints tables; never asserts.

1. Tokens the model must emit for a 10-line change in a 2,000-line Python file, as the whole
   reply it would write: the whole file in a JSON string (today's only way), the whole file in
   a fenced body, one search/replace block in JSON strings, and the same block in fenced bodies
   (the search holds the 10 lines plus 2 lines of context on each side). Ratios against the
   whole file in JSON. Tokens are estimated offline with a documented approximation (no
   tokenizer download): BPE tokenizers of code models split text into words, numbers,
   punctuation runs and whitespace runs; we count the pieces of the regex
   ``[A-Za-z]+|[0-9]{1,3}|[^\\sA-Za-z0-9]|\\s+`` (a word ~ 1 token, each symbol 1, digits in
   groups of 3, indentation 1), and print chars/4 beside it as a second estimate.
2. Time to apply 100 blocks (3 lines each, sent in shuffled order) to a 10,000-line file:
   exact matches, and indentation-shifted ones (the tolerant path); min/median/max of RUNS
   runs (goal <= 10 ms for the exact case). Reference measured in the same run: the floor of
   any exact matcher that checks uniqueness — 100 x (find + a second find) over the text.
   Also: the failure path (5 blocks with typos: nearest lines found with difflib).

Run: .venv/bin/python bench/edits.py [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from actions.search_replace import EditBlock, EditsFailed, apply_edits

_PIECES = re.compile(r"[A-Za-z]+|[0-9]{1,3}|[^\sA-Za-z0-9]|\s+")


def tokens(text: str) -> int:
    return len(_PIECES.findall(text))


def module(lines: int, seed: int = 7) -> list[str]:
    """A Python-like module: functions of 8 lines with unique names and varied bodies."""
    rng = random.Random(seed)
    rows: list[str] = []
    n = 0
    while len(rows) < lines:
        rows += [
            f"def handle_{n}(request, store):",
            f'    """Handle request kind {n} and record it."""',
            f"    key = request.get('key_{n}', {rng.randrange(1000)})",
            "    if key is None:",
            f'        raise ValueError("missing key_{n}: {{request!r}}")',
            f"    store[key] = store.get(key, 0) + {rng.randrange(1, 9)}",
            "    return store[key]",
            "",
        ]
        n += 1
    return rows[:lines]


def document(file: dict[str, object]) -> str:
    body = {"action": "update_file", "file": file}
    return json.dumps({"action": "continue_multi_file", "next_file": body, "message": "Next."})


def reply(doc: str, *fences: str) -> str:
    parts = ["Updating the handlers.", "```json", doc, "```"]
    for fence in fences:
        parts += ["```python", fence.rstrip("\n"), "```"]
    return "\n".join(parts) + "\n"


def token_table() -> None:
    rows = module(2000)
    start = 1000
    changed = [row.replace("store", "cache") + "  # v2" for row in rows[start : start + 10]]
    new_rows = rows[:start] + changed + rows[start + 10 :]
    whole = "\n".join(new_rows) + "\n"
    search = "\n".join(rows[start - 2 : start + 12]) + "\n"
    replace = "\n".join(rows[start - 2 : start] + changed + rows[start + 10 : start + 12]) + "\n"
    assert apply_edits("\n".join(rows) + "\n", [EditBlock(search, replace)]).text == whole
    ref = {"fence": 1}
    variants = {
        "whole file, JSON string": reply(document({"path": "/app.py", "content": whole})),
        "whole file, fenced body": reply(document({"path": "/app.py", "content": ref}), whole),
        "search/replace, JSON strings": reply(
            document({"path": "/app.py", "edits": [{"search": search, "replace": replace}]})
        ),
        "search/replace, fenced bodies": reply(
            document({"path": "/app.py", "edits": [{"search": ref, "replace": {"fence": 2}}]}),
            search,
            replace,
        ),
    }
    base = tokens(variants["whole file, JSON string"])
    print("1. A 10-line change in a 2,000-line file: what the model must emit")
    print(f"{'reply':34} {'tokens~':>9} {'chars/4':>9} {'vs whole JSON':>14}")
    for name, text in variants.items():
        count = tokens(text)
        print(f"{name:34} {count:9d} {len(text) // 4:9d} {base / count:13.1f}x")
    print()


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return times


def apply_table(runs: int) -> None:
    rows = module(10_000)
    text = "\n".join(rows) + "\n"
    rng = random.Random(3)
    starts = sorted(rng.sample(range(0, 9_990, 8), 100))
    exact = [
        EditBlock("\n".join(rows[s : s + 3]) + "\n", "\n".join(rows[s : s + 3]) + "  # x\n")
        for s in starts
    ]
    rng.shuffle(exact)
    shifted = [EditBlock(_indent(b.search), _indent(b.replace)) for b in exact]
    typos = [EditBlock(b.search.replace("request", "reqest"), b.replace) for b in exact[:5]]
    assert apply_edits(text, shifted).text == apply_edits(text, exact).text

    def reference() -> None:
        for block in exact:
            at = text.find(block.search)
            text.find(block.search, at + 1)

    def failing() -> None:
        try:
            apply_edits(text, typos)
        except EditsFailed:
            return

    cases = {
        "reference: 100 x find + find": reference,
        "100 exact blocks": lambda: apply_edits(text, exact),
        "100 indentation-shifted blocks": lambda: apply_edits(text, shifted),
        "5 blocks with typos (nearest lines)": failing,
    }
    print(f"2. Applying blocks to a 10,000-line file ({len(text) // 1024} KB), {runs} runs, ms")
    print(f"{'case':36} {'min':>8} {'median':>8} {'max':>8} {'vs ref':>7}")
    ref_median = 0.0
    for name, fn in cases.items():
        times = timed(fn, runs)
        median = statistics.median(times)
        ref_median = ref_median or median
        print(
            f"{name:36} {min(times):8.2f} {median:8.2f} {max(times):8.2f}"
            f" {median / ref_median:6.1f}x"
        )
    print("goal: 100 exact blocks <= 10 ms")


def _indent(text: str) -> str:
    return "".join("    " + row if row.strip() else row for row in text.splitlines(True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    token_table()
    apply_table(max(3, args.runs))


if __name__ == "__main__":
    main()
