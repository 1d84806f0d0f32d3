"""Throughput of parse_reply on generated replies, beside orjson on the same JSON; json-repair on
one malformed 68 KB file-write block. Prints a table; never asserts.

Replies: prose paragraphs (some with ``{x}`` and ``[1]`` mentions) between action documents and
tool calls, bare, in ```json fences and in <tool_call> tags, their strings holding code;
about 25% malformed (trailing commas, Python literals, raw newlines, inner quotes, comments);
the last document cut off. Targets (issue 3): >= 50 MB/s on the 1 MB reply, 10 MB <= 11x the
1 MB time, the 68 KB block <= 10 ms.

Run: .venv/bin/python bench/parse.py
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

import json_repair
import orjson

from parsing import parse_reply

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


def _document(rng: random.Random, lines: int) -> dict[str, Any]:
    content = "\n".join(rng.choice(CODE) for _ in range(lines)) + "\n"
    kind = rng.random()
    if kind < 0.5:
        file = {"action": "update_file", "file": {"path": "/src/app.py", "content": content}}
        return {"action": "continue_multi_file", "next_file": file, "message": "Next file"}
    if kind < 0.8:
        return {"action": "text_response", "text_response": content}
    return {"name": "read_file", "arguments": {"path": "/src/app.py", "note": content[:200]}}


def _malform(rng: random.Random, text: str) -> str:
    how = rng.randrange(5)
    if how == 0:
        return text[:-1] + ",}"
    if how == 1:
        return text[:-1] + ', "draft": True}'
    if how == 2:
        return text.replace("\\n", "\n", 3)
    if how == 3:
        return text.replace('"Next file"', '"Next "big" file"').replace(
            '"text_response": "', '"text_response": "a "quoted" word '
        )
    return text.replace('{"', '{ // generated\n "', 1)


def _wrap(rng: random.Random, doc: dict[str, Any], raw: str) -> str:
    if "name" in doc:
        return f"<tool_call>\n{raw}\n</tool_call>"
    return raw if rng.random() < 0.5 else f"```json\n{raw}\n```"


def reply(size: int, seed: int = 7) -> tuple[str, list[bytes]]:
    """A reply of about ``size`` characters and the valid JSON bytes of its documents."""
    rng = random.Random(seed)
    parts: list[str] = []
    valid: list[bytes] = []
    total = 0
    while total < size:
        doc = _document(rng, rng.randint(5, 60))
        raw = json.dumps(doc, indent=rng.choice([None, 2]))
        valid.append(raw.encode())
        if rng.random() < 0.25:
            raw = _malform(rng, raw)
        prose = PROSE * rng.randint(1, 4) + (MENTION if rng.random() < 0.3 else "")
        piece = prose + "\n" + _wrap(rng, doc, raw) + "\n\n"
        parts.append(piece)
        total += len(piece)
    last = json.dumps(_document(rng, 40))
    parts.append("Writing the last file:\n" + last[: len(last) * 2 // 3])  # cut off
    return "".join(parts), valid


def best_time(fn: Callable[[], object], repeat: int) -> float:
    """Best CPU time of ``repeat`` runs (process time: the figure of the parser's own work,
    steadier than wall time on a shared machine)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def block_68k() -> str:
    rng = random.Random(3)
    content = ""
    while len(content) < 66_000:
        content += rng.choice(CODE) + "\n"
    doc = {"action": "start_multi_file", "plan": {"description": "big", "files_to_modify": []}}
    doc["first_file"] = {"action": "create_file", "file": {"path": "/big.py", "content": content}}
    return json.dumps(doc, indent=2)[:-2] + ",\n}"  # trailing comma: malformed


def interleaved(rounds: int = 5) -> float:
    """The 10 MB / 1 MB time ratio with both sizes timed in alternation, best of each."""
    small, large = reply(1_000_000)[0], reply(10_000_000)[0]
    t_small = t_large = float("inf")
    for _ in range(rounds):
        t_small = min(t_small, best_time(lambda: parse_reply(small), 1))
        t_large = min(t_large, best_time(lambda: parse_reply(large), 1))
    return t_large / t_small


def main() -> None:
    print("CPU time, best of several runs")
    print(f"{'reply':>8} {'parse_reply':>14} {'MB/s':>8} {'orjson MB/s':>12} {'blocks':>7}")
    times: dict[int, float] = {}
    for size in (1_000, 100_000, 1_000_000, 10_000_000):
        text, valid = reply(size)
        repeat = 3 if size >= 10_000_000 else 7
        t = best_time(lambda text=text: parse_reply(text), repeat)
        times[size] = t
        t_or = best_time(lambda valid=valid: [orjson.loads(v) for v in valid], repeat)
        mb = len(text.encode()) / 1e6
        mb_or = sum(map(len, valid)) / 1e6
        n_blocks = len(parse_reply(text))
        print(f"{size:>8} {t * 1000:>11.2f} ms {mb / t:>8.1f} {mb_or / t_or:>12.1f} {n_blocks:>7}")
    ratio = times[10_000_000] / times[1_000_000]
    print(f"\n10 MB / 1 MB time ratio: {ratio:.2f} (target <= 11)")
    print(f"  interleaved, best of 5 rounds each (load hits both sizes alike): {interleaved():.2f}")
    block = block_68k()
    ours = best_time(lambda: parse_reply(block), 5)
    [action] = parse_reply(block)
    start = time.process_time()
    theirs = json_repair.loads(block)
    t_jr = time.process_time() - start
    content = action.document["first_file"]["file"]["content"]  # type: ignore[union-attr]
    jr_content = theirs["first_file"]["file"]["content"]  # type: ignore[index,call-overload]
    print(f"\n{len(block) / 1000:.0f} KB malformed file-write block (trailing comma):")
    print(
        f"  parse_reply      {ours * 1000:9.2f} ms  content {len(content)} chars (target <= 10 ms)"
    )
    print(f"  json_repair.loads {t_jr * 1000:8.1f} ms  content {len(jr_content)} chars")


if __name__ == "__main__":
    main()
