"""Stream == whole on generated replies (issue 21 item 9): the server runs what the stream
parser yields while ``agent-ls parse`` shows the whole-reply result, so every chunking of a
reply must give the whole-reply blocks. Prints the count of replies that differ, and the
shortest ones (shrunk by deleting characters while they still differ); never asserts.

A reply is drawn from pieces (action documents, fences, tags, prose, code) then mutated
(cut, duplicated, spliced with JSON and region tokens), so most replies are near the shapes
a model writes and many are malformed. Each reply is streamed in a chunking drawn from 1, 7
and 16 characters and random sizes (1-40), and compared with `parse_reply`.

Run: .venv/bin/python bench/stream_whole.py [--n 1000000] [--seed 1] [--max-seconds S]
"""

from __future__ import annotations

import argparse
import json
import random
import time

from parsing import StreamParser, parse_reply
from parsing.blocks import Block, TextBlock

_ATOMS = [
    *'{}[]"\',:\\ \n\tab0-/*`~<>',
    "<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_use>", "```json\n", "```",
    "```\n", "\n```", "~~~", "~~~\n", "True", "None", "null", '"action"', '"tool_call"',
    '"text_response"', '{"action": "tool_call", ', '{"name": "x", "arguments": {', "\\n",
    '"\n"', "\\u00e9", "é", "//", "/*", "*/", "x = ", "    ",
]  # fmt: skip
_PROSE = ["Here it is: ", "Sure.\n", "Use {x} or [1]. ", "done\n", "I'll call a tool.\n"]
_CODE = ['def f(x):\n    return {"a": [1, 2]}\n', 'if (a) { b["k"] = "v"; }', "x = '}' + \"]\"\n"]


def _doc(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.4:
        doc: object = {
            "action": "tool_call",
            "tool_call": {"name": "read", "arguments": {"p": "a"}},
        }
    elif kind < 0.7:
        doc = {"action": "text_response", "text_response": rng.choice(_CODE + _PROSE)}
    elif kind < 0.85:
        doc = {"name": "read_file", "arguments": {"path": "/a.py", "c": rng.choice(_CODE)}}
    else:
        doc = [1, {"a": None}, "s"]
    return json.dumps(doc, indent=rng.choice([None, None, 2]))


def _piece(rng: random.Random) -> str:
    kind = rng.randrange(9)
    if kind == 0:
        return rng.choice(_PROSE)
    doc = _doc(rng)
    if kind in (1, 2):
        return doc
    if kind == 3:
        return f"```json\n{doc}\n```\n"
    if kind == 4:
        return f"```{rng.choice(['', ' ', chr(10)])}{doc}```"
    if kind == 5:
        return f"~~~\n{doc}\n~~~\n"
    if kind == 6:
        return f"<tool_call>{doc}</tool_call>"
    if kind == 7:
        return f"<think>{rng.choice(_PROSE)}</think>"
    return f"```python\n{rng.choice(_CODE)}```\n"


def reply(rng: random.Random) -> str:
    """One generated reply (see the module docstring)."""
    if rng.random() < 0.15:  # pure noise
        return "".join(rng.choice(_ATOMS) for _ in range(rng.randrange(1, 60)))
    text = "".join(_piece(rng) for _ in range(rng.randrange(1, 4)))
    for _ in range(rng.randrange(0, 5)):
        if not text:
            break
        i = rng.randrange(len(text) + 1)
        j = min(len(text), i + rng.randrange(0, 30))
        op = rng.randrange(4)
        if op == 0:
            text = text[:i] + text[j:]
        elif op == 1:
            text = text[:j] + text[i:j] + text[j:]
        elif op == 2:
            text = text[:i] + rng.choice(_ATOMS) + text[i:]
        else:
            text = text[:i]
    return text


def _normalised(blocks: list[Block]) -> list[object]:
    """Non-text blocks as they are, the text between them concatenated."""
    out: list[object] = []
    text: list[str] = []
    for b in blocks:
        if isinstance(b, TextBlock):
            text.append(b.text)
        else:
            out.append("".join(text))
            text = []
            out.append(repr(b))
    out.append("".join(text))
    return out


def _streamed(text: str, sizes: list[int]) -> list[Block]:
    parser, out, i, k = StreamParser(), [], 0, 0
    while i < len(text):
        size = sizes[k % len(sizes)]
        out += parser.feed(text[i : i + size])
        i, k = i + size, k + 1
    return out + parser.close()


def differs(text: str, sizes: list[int]) -> bool:
    """Does streaming ``text`` in chunks of ``sizes`` (cycled) give other blocks?"""
    return _normalised(_streamed(text, sizes)) != _normalised(parse_reply(text))


def chunkings(rng: random.Random) -> list[list[int]]:
    return [[1], [7], [16], [rng.randrange(1, 41) for _ in range(8)]]


def shrink(text: str, sizes: list[int]) -> str:
    """The shortest text found by deleting runs of characters while it still differs."""
    for width in (16, 8, 4, 2, 1):
        i = 0
        while i < len(text):
            cut = text[:i] + text[i + width :]
            if cut and differs(cut, sizes):
                text = cut
            else:
                i += 1
    return text


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000, help="replies (each streamed once)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-seconds", type=float, default=0.0, help="stop early (0: never)")
    ap.add_argument("--show", type=int, default=10, help="shrunk cases printed")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    start = time.perf_counter()
    failures: list[tuple[str, list[int]]] = []
    done = 0
    for done in range(1, args.n + 1):
        text = reply(rng)
        sizes = rng.choice(chunkings(rng))
        if differs(text, sizes):
            failures.append((text, sizes))
        if done % 50_000 == 0:
            elapsed = time.perf_counter() - start
            print(f"{done} replies, {len(failures)} differ, {elapsed:.0f} s", flush=True)
        if args.max_seconds and time.perf_counter() - start > args.max_seconds:
            break
    elapsed = time.perf_counter() - start
    share = 100 * len(failures) / max(done, 1)
    print(f"stream != whole: {len(failures)} of {done} replies ({share:.3f}%), {elapsed:.0f} s")
    shrunk = sorted({shrink(t, s) for t, s in failures[: args.show * 5]}, key=len)
    for case in shrunk[: args.show]:
        print(f"  {case!r}")


if __name__ == "__main__":
    main()
