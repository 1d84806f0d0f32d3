"""Reply parsing speed against the goals of issues 3 and 10: what the server runs (whole-reply
parse and `StreamParser.feed` in small deltas), on clean and malformed replies. Prints
min / median / max CPU time of >= 3 runs; never asserts.

Replies: prose paragraphs (some with ``{x}`` and ``[1]`` mentions) between action documents and
tool calls, bare, in ```json fences and in <tool_call> tags, their strings holding code; about
25% malformed (trailing commas, Python literals, raw newlines, inner quotes, comments); the last
document cut off. Goals: >= 50 MB/s on the 1 MB reply (clean mix and the malformed kinds,
including 25% documents whose code has unescaped quotes), 10 MB <= 11x the 1 MB time, a 68 KB
file write with unescaped quotes <= 10 ms (and recovered in a fence or tag). The stream in
small deltas is what the server runs per streamed delta: its cost per delta is printed against
the 25 us share of the chat-turn budget (issue 10 item 3: <= 5 ms p50 for 200 deltas).

Run: .venv/bin/python bench/parse.py [--quick]
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import json_repair
import orjson

from parsing import ActionBlock, StreamParser, parse_reply

CODE = [
    "def load(path: str) -> dict:",
    '    with open(path, "r", encoding="utf-8") as fh:',
    "        return json.load(fh)  # {not json}",
    '    print(f"loaded {len(cfg)} keys\\n")',
    "if (a && b) { x[\"k\"] = '}'; }",
    '    x = {\'a\': [1, 2, 3], "b": {"c": None}}',
    "// TODO: C:\\temp\\path ```not a fence``` </tool_call>",
]
PROSE = (
    "The handler reads the config once, caches it and returns it to the caller; see the "
    "tests. Nothing else changes, the tests in test_config.py cover the new branch. "
)
MENTION = "Use {x} in the template, or [1] as in the docs. "
KINDS = ("trailing comma", "python literal", "raw newlines", "inner quotes", "comment")
CODE_QUOTES = "unescaped code quotes"
RUNS = 5


def _document(rng: random.Random, lines: int) -> dict[str, Any]:
    content = "\n".join(rng.choice(CODE) for _ in range(lines)) + "\n"
    kind = rng.random()
    if kind < 0.5:
        file = {"action": "update_file", "file": {"path": "/src/app.py", "content": content}}
        return {"action": "continue_multi_file", "next_file": file, "message": "Next file"}
    if kind < 0.8:
        return {"action": "text_response", "text_response": content}
    return {"name": "read_file", "arguments": {"path": "/src/app.py", "note": content[:200]}}


def _malform(kind: str, text: str) -> str:
    if kind == "trailing comma":
        return text[:-1] + ",}"
    if kind == "python literal":
        return text[:-1] + ', "draft": True}'
    if kind == "raw newlines":
        return text.replace("\\n", "\n", 3)
    if kind == "inner quotes":
        return text.replace('"Next file"', '"Next "big" file"').replace(
            '"text_response": "', '"text_response": "a "quoted" word '
        )
    if kind == CODE_QUOTES:  # the model forgot to escape the quotes of the code
        head, sep, rest = text.partition('"content": "')
        if not sep:
            head, sep, rest = text.partition('"text_response": "')
        if not sep:
            return text
        body, tail = rest.rsplit('"', 1)
        return head + sep + body.replace('\\"', '"') + '"' + tail
    return text.replace('{"', '{ // generated\n "', 1)


def _wrap(rng: random.Random, doc: dict[str, Any], raw: str, fenced: float) -> str:
    if "name" in doc:
        return f"<tool_call>\n{raw}\n</tool_call>"
    return f"```json\n{raw}\n```" if rng.random() < fenced else raw


def reply(
    size: int, seed: int = 7, kinds: tuple[str, ...] = KINDS, fenced: float = 0.5
) -> tuple[str, list[bytes]]:
    """A reply of about ``size`` characters (25% of its documents malformed by one of
    ``kinds``) and the valid JSON bytes of its documents."""
    rng = random.Random(seed)
    parts: list[str] = []
    valid: list[bytes] = []
    total = 0
    while total < size:
        doc = _document(rng, rng.randint(5, 60))
        raw = json.dumps(doc, indent=rng.choice([None, 2]))
        valid.append(raw.encode())
        if rng.random() < 0.25 and kinds:
            raw = _malform(rng.choice(kinds), raw)
        prose = PROSE * rng.randint(1, 4) + (MENTION if rng.random() < 0.3 else "")
        piece = prose + "\n" + _wrap(rng, doc, raw, fenced) + "\n\n"
        parts.append(piece)
        total += len(piece)
    last = json.dumps(_document(rng, 40))
    parts.append("Writing the last file:\n" + last[: len(last) * 2 // 3])  # cut off
    return "".join(parts), valid


def times(fn: Callable[[], object], runs: int = RUNS) -> list[float]:
    """CPU times of ``runs`` runs (process time: the parser's own work, steadier than wall
    time on a shared machine)."""
    out = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        out.append(time.process_time() - start)
    return out


def spread(values: list[float], scale: float = 1.0, fmt: str = "{:8.2f}") -> str:
    """min / median / max."""
    parts = (min(values), statistics.median(values), max(values))
    return " / ".join(fmt.format(v * scale) for v in parts)


def mbps(size_mb: float, seconds: list[float]) -> list[float]:
    """Throughput per run, worst last (min / median / max of MB/s)."""
    return sorted(size_mb / t for t in seconds)


def stream(text: str, delta: int) -> None:
    """What the server does: feed the reply in deltas of ``delta`` characters."""
    parser = StreamParser()
    for i in range(0, len(text), delta):
        parser.feed(text[i : i + delta])
    parser.close()


def verdict(ok: bool) -> str:
    return "meets the goal" if ok else "MISSES the goal"


def throughput(quick: bool) -> None:
    print("Whole-reply parse (CPU time, min / median / max of runs)")
    print(f"{'reply':>9} {'ms':>28} {'MB/s':>26} {'orjson MB/s':>12} {'blocks':>7}")
    sizes = (1_000, 100_000, 1_000_000) if quick else (1_000, 100_000, 1_000_000, 10_000_000)
    medians: dict[int, float] = {}
    for size in sizes:
        text, valid = reply(size)
        runs = 3 if size >= 10_000_000 else RUNS
        t = times(lambda text=text: parse_reply(text), runs)
        medians[size] = statistics.median(t)
        t_or = statistics.median(times(lambda valid=valid: [orjson.loads(v) for v in valid], 3))
        mb = len(text.encode()) / 1e6
        rates = mbps(mb, t)
        print(
            f"{size:>9} {spread(t, 1000):>28} {spread(rates, fmt='{:7.1f}'):>26} "
            f"{sum(map(len, valid)) / 1e6 / t_or:>12.1f} {len(parse_reply(text)):>7}"
        )
    if 10_000_000 in medians:
        ratio = medians[10_000_000] / medians[1_000_000]
        print(f"10 MB / 1 MB median time ratio: {ratio:.2f} (goal <= 11: {verdict(ratio <= 11)})")


def paired(fn: Callable[[], object], reference: Callable[[], object]) -> tuple[list[float], float]:
    """CPU times of ``fn`` over `RUNS` runs, each right after a run of ``reference``, and the
    median of the per-pair time ratios (a load that changes during the bench hits both
    sides of a pair alike)."""
    own, ratios = [], []
    for _ in range(RUNS):
        ref = times(reference, 1)[0]
        t = times(fn, 1)[0]
        own.append(t)
        ratios.append(t / ref)
    return own, statistics.median(ratios)


def malformed(quick: bool) -> None:
    print("\n1 MB replies, 25% of documents malformed by one kind (goal >= 50 MB/s, median;")
    print("x clean: median of the time ratios to the same reply with no malformed document,")
    print("each run paired with a run of the clean reply right before it)")
    print(
        f"{'kind':>24} {'MB/s min / median / max':>28} {'x clean':>8}  "
        f"{'stream 16-char deltas':>24}"
    )
    size = 300_000 if quick else 1_000_000
    clean_text, _ = reply(size, kinds=())
    for kind in ("none (clean)", *KINDS, CODE_QUOTES):
        text = clean_text if kind.startswith("none") else reply(size, kinds=(kind,))[0]
        mb = len(text.encode()) / 1e6
        t, ratio = paired(lambda text=text: parse_reply(text), lambda: parse_reply(clean_text))
        whole = mbps(mb, t)
        streamed = mbps(mb, times(lambda text=text: stream(text, 16), 3))
        ok = statistics.median(whole) >= 50
        print(
            f"{kind:>24} {spread(whole, fmt='{:6.1f}'):>28} "
            f"{ratio:>8.2f}  {spread(streamed, fmt='{:6.1f}'):>24}"
            f"  {verdict(ok)}"
        )


DELTA_BUDGET_US = 25.0


def streaming(quick: bool) -> None:
    text, _ = reply(300_000 if quick else 1_000_000)
    mb = len(text.encode()) / 1e6
    whole = statistics.median(times(lambda: parse_reply(text)))
    print(f"\nStreamParser.feed in small deltas, {mb:.1f} MB mixed reply")
    print(
        f"{'delta':>7} {'ms min / median / max':>30} {'MB/s':>6} {'x whole':>8} "
        f"{'us/delta':>9}  (goal <= {DELTA_BUDGET_US:.0f} us per delta)"
    )
    for delta in (1, 4, 16, 64):
        if delta == 1 and not quick:
            sample = text[:200_000]  # one feed per character: a fifth of the reply
            t = [x * len(text) / len(sample) for x in times(lambda s=sample: stream(s, 1), 3)]
        else:
            t = times(lambda delta=delta: stream(text, delta), 3)
        med = statistics.median(t)
        per_delta = med / (len(text) / delta) * 1e6
        print(
            f"{delta:>7} {spread(t, 1000):>30} {mb / med:>6.1f} {med / whole:>8.2f} "
            f"{per_delta:>9.1f}  {verdict(per_delta <= DELTA_BUDGET_US)}"
        )


def _file_write_68k() -> tuple[str, str]:
    rng = random.Random(3)
    content = ""
    while len(content) < 66_000:
        content += rng.choice(CODE) + "\n"
    doc = {"action": "start_multi_file", "plan": {"description": "big", "files_to_modify": []}}
    doc["first_file"] = {"action": "create_file", "file": {"path": "/big.py", "content": "@"}}
    escaped = json.dumps(content)[1:-1].replace('\\"', '"')  # quotes left unescaped
    return json.dumps(doc, indent=2).replace('"@"', '"' + escaped + '"'), content


def big_block() -> None:
    raw, content = _file_write_68k()
    print(f"\n{len(raw) / 1000:.0f} KB file write whose code has unescaped quotes (goal <= 10 ms)")
    for name, text in (
        ("bare", raw),
        ("```json fence", f"Here it is:\n```json\n{raw}\n```\nDone."),
        ("<tool_call> tag", f"<tool_call>\n{raw}\n</tool_call>"),
    ):
        t = times(lambda text=text: parse_reply(text))
        actions = [b for b in parse_reply(text) if isinstance(b, ActionBlock)]
        got = actions[0].document.get("first_file", {}).get("file", {}) if actions else {}
        state = (
            "content recovered exactly"
            if got.get("content") == content
            else "not read as a document (extent unknown)"
            if not actions
            else f"truncated={actions[0].truncated}"
        )
        ok = statistics.median(t) <= 0.010
        print(f"  {name:>16} {spread(t, 1000)} ms  {state}; {verdict(ok)}")
    start = time.process_time()
    try:
        json_repair.loads(raw)
        jr = f"{(time.process_time() - start) * 1000:.0f} ms"
    except Exception as exc:  # a reference figure only: json-repair's own failure is shown
        jr = f"failed: {type(exc).__name__}"
    print(f"  json_repair.loads alone on the bare block (reference): {jr}")


def main() -> None:
    quick = "--quick" in sys.argv
    throughput(quick)
    malformed(quick)
    streaming(quick)
    big_block()


if __name__ == "__main__":
    main()
