"""The reply parser of this tree against the one of another git revision (A/B): the same
~15k inputs read by both, and the adversarial families timed alternately. Prints; never
asserts.

A speed-up of the parser must read every input exactly as before (issue 10: "stream ==
whole", and no result changed by accident). Inputs: every family of
tests/unit/parsing/families.py at 12 sizes, the fuzz corpus, the replies of
tests/fixtures/corpus, bench/parse.py's replies of every malformed kind, and 15,000 seeded
mutants of those. Each revision reads them in its own process (its own ``parsing``
package); the whole-reply blocks are compared by their repr, and each process checks that
its stream (1- and 16-character deltas) gives the whole-reply parse's non-text blocks and
tiles the reply. Then each family's ms per 100 KB, whole and streamed in 16-character deltas,
is timed for both revisions alternately, twice (this machine's speed drifts: only figures
from one run compare).

Run: .venv/bin/python bench/parse_ab.py [REV]   (e.g. HEAD~3, main, a commit; default HEAD:
the uncommitted change of this tree against its last commit)
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ATOMS = ['{', '}', '[', ']', '"', "'", ':', ',', '\n', '`', '```', '```json\n', '~~~', '\\',
         '//', '/*', '<tool_call>', '</tool_call>', '<think>', 'True', 'x', ' ',
         '"action": "text_response"', '{"name": "read_file", "arguments": {']  # fmt: skip
SIZES = (1, 2, 3, 4, 5, 7, 8, 13, 21, 50, 120, 600)
MUTANTS = 15_000


def _load(name: str, path: Path) -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def inputs() -> dict[str, str]:
    """The inputs, by name (built from this tree's families and generators only)."""
    families = _load("families", ROOT / "tests" / "unit" / "parsing" / "families.py")
    replies = _load("bench_parse", ROOT / "bench" / "parse.py")
    found: dict[str, str] = {}
    for name, make in families.FAMILIES.items():  # type: ignore[attr-defined]
        for n in SIZES:
            found[f"family {name} x{n}"] = make(n)
    for path in sorted((ROOT / "tests" / "fuzz" / "corpus").glob("*")):
        found[f"fuzz {path.name}"] = path.read_text()
    seeds = []
    for path in sorted((ROOT / "tests" / "fixtures" / "corpus").rglob("*.txt")):
        seeds.append(path.read_text())
        found[f"corpus {path.name}"] = seeds[-1]
    kinds = (*replies.KINDS, replies.CODE_QUOTES)  # type: ignore[attr-defined]
    for kind in kinds:
        for seed in (1, 2, 3):
            found[f"bench {kind} {seed}"] = replies.reply(30_000, seed=seed, kinds=(kind,))[0]  # type: ignore[attr-defined]
    rng = random.Random(11)
    for i in range(MUTANTS):
        text = rng.choice([*seeds, replies.reply(3_000, seed=i, kinds=kinds)[0]])  # type: ignore[attr-defined]
        for _ in range(rng.randint(1, 6)):
            at, op = rng.randrange(len(text) + 1), rng.random()
            if op < 0.4:
                text = text[:at] + rng.choice(ATOMS) + text[at:]
            elif op < 0.7:
                text = text[:at] + text[at + rng.randint(1, 20) :]
            else:
                text = text[:at]
        found[f"mutant {i}"] = text
    return found


def dump(out: Path) -> None:
    """(In the revision's process.) Each input's whole-reply result digest; the inputs
    whose stream differs from the whole-reply parse."""
    from parsing import StreamParser, parse_reply
    from parsing.blocks import TextBlock

    digests, mismatches = {}, []
    for key, text in inputs().items():
        whole = parse_reply(text)
        digests[key] = hashlib.sha1(repr(whole).encode()).hexdigest()
        kept = [b for b in whole if not isinstance(b, TextBlock)]
        for delta in (1, 16) if len(text) < 4_000 else (16,):
            parser, got = StreamParser(), []
            for i in range(0, len(text), delta):
                got += parser.feed(text[i : i + delta])
            got += parser.close()
            streamed = [b for b in got if not isinstance(b, TextBlock)]
            if streamed != kept or "".join(b.text for b in got) != text:
                mismatches.append(f"{key} (delta {delta})")
    import parsing

    where = str(Path(parsing.__file__).parent)
    out.write_text(json.dumps({"digests": digests, "mismatches": mismatches, "from": where}))


def speed(out: Path) -> None:
    """(In the revision's process.) Each family's ms per 100 KB, whole and streamed."""
    from parsing import StreamParser, parse_reply

    families = _load("families", ROOT / "tests" / "unit" / "parsing" / "families.py")

    def stream(text: str) -> None:
        parser = StreamParser()
        for i in range(0, len(text), 16):
            parser.feed(text[i : i + 16])
        parser.close()

    def cpu(fn: object) -> float:
        runs = []
        for _ in range(3):
            start = time.process_time()
            fn()  # type: ignore[operator]
            runs.append(time.process_time() - start)
        return statistics.median(runs)

    figures = {}
    for name, make in families.FAMILIES.items():  # type: ignore[attr-defined]
        text = make(100_000 // max(1, len(make(100)) // 100))
        scale = 100_000 / len(text) * 1000
        figures[name] = (
            cpu(lambda text=text: parse_reply(text)) * scale,
            cpu(lambda text=text: stream(text)) * scale,
        )
    out.write_text(json.dumps(figures))


def _run(tree: Path, what: str, out: Path) -> None:
    # the revision's `parsing` first on the path; this file (and its inputs) from this tree
    code = (
        f"import sys; sys.path.insert(0, {str(tree)!r}); sys.argv = ['parse_ab']; "
        f"import runpy; ab = runpy.run_path({str(Path(__file__))!r}); "
        f"ab[{what!r}](__import__('pathlib').Path({str(out)!r}))"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tempfile.gettempdir())


def main() -> None:
    if len(sys.argv) > 2:
        sys.exit("usage: bench/parse_ab.py [REV]")
    rev = sys.argv[1] if len(sys.argv) == 2 else "HEAD"
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(base), rev],
            check=True,
        )
        try:
            compare(base, Path(tmp))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)])


def compare(base: Path, tmp: Path) -> None:
    results = {}
    for label, tree in (("base", base), ("this tree", ROOT)):
        _run(tree, "dump", tmp / f"{label}.json")
        results[label] = json.loads((tmp / f"{label}.json").read_text())
    a, b = results["base"]["digests"], results["this tree"]["digests"]
    differ = [key for key in a if a[key] != b.get(key)]
    for label, found in results.items():
        print(f"{label}: parsing from {found['from']}")
    print(f"{len(a)} inputs read by both; {len(differ)} read differently")
    for key in differ[:20]:
        print(f"  {key}")
    for label, found in results.items():
        print(f"stream != whole ({label}): {len(found['mismatches'])} {found['mismatches'][:5]}")
    runs: dict[str, list[dict[str, list[float]]]] = {"base": [], "this tree": []}
    for round_ in range(2):
        for label, tree in (("base", base), ("this tree", ROOT)):
            _run(tree, "speed", tmp / f"speed-{label}-{round_}.json")
            runs[label].append(json.loads((tmp / f"speed-{label}-{round_}.json").read_text()))
    print("\nms per 100 KB, best of 2 alternated runs (each a median of 3)")
    print(f"{'family':42} {'base whole':>10} {'whole':>8} {'base stream':>11} {'stream':>8}")
    for name in runs["base"][0]:
        best = {
            label: [min(run[name][mode] for run in runs[label]) for mode in (0, 1)]
            for label in runs
        }
        (bw, bs), (nw, ns) = best["base"], best["this tree"]
        print(f"{name:42} {bw:10.1f} {nw:8.1f} {bs:11.1f} {ns:8.1f}")


if __name__ == "__main__":
    main()
