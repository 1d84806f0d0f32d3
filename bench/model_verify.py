"""What checking the embedder's files against their pinned sha256 costs. Prints a table; never
asserts.

The model (23 MB) and the tokenizer (0.5 MB) are hashed once per process, on the first
``dense_status()`` (when an index is opened: server start, `agent-ls index` / `search`); later
checks (every status, every embedder load) are one ``stat`` per file. Measured, min / median /
max of RUNS runs (files in the page cache, as after install or any earlier run):

- sha256 of each file alone;
- the first ``dense_status()`` of a fresh process (imports excluded): what a user waits for
  once per process; a later ``dense_status()`` (it finds the packages again: importlib specs)
  and, within it, the check of both files once it is cached (one ``stat`` each);
- for scale, in the same fresh processes: loading the model (onnxruntime session) and
  embedding one query, which the first hybrid search pays anyway.

Needs the `embeddings` extra. Run: .venv/bin/python bench/model_verify.py [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from actions.index.embeddings import dense_status, model_files  # noqa: E402
from actions.index.pinned import sha256_of  # noqa: E402

# Run in a fresh interpreter: times in ms of the first and a second dense_status(), the model
# load (first embed of a query includes it) and a second query embedding.
CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from actions.index.embeddings import dense_status, files_mismatch, load_embedder, model_files
t0 = time.perf_counter(); first = dense_status(); t1 = time.perf_counter()
dense_status(); t2 = time.perf_counter()
files = model_files(); c0 = time.perf_counter(); files_mismatch(*files); c1 = time.perf_counter()
embedder = load_embedder(); t3 = time.perf_counter()
embedder.embed(["how often must ssl certs be refreshed"]); t4 = time.perf_counter()
embedder.embed(["renewing https certs before they expire"]); t5 = time.perf_counter()
print(json.dumps({"enabled": first.enabled, "first": (t1 - t0) * 1e3, "again": (t2 - t1) * 1e3,
    "cached": (c1 - c0) * 1e3,
    "load": (t4 - t3) * 1e3, "query": (t5 - t4) * 1e3}))
"""


def spread(values: list[float], unit: str = "ms") -> str:
    scale = 1e3 if unit == "us" else 1.0
    low, mid, high = (v * scale for v in (min(values), statistics.median(values), max(values)))
    return f"{low:>10.2f}{mid:>10.2f}{high:>10.2f}  {unit}"


def hash_times(path: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        sha256_of(path)
        times.append((time.perf_counter() - start) * 1e3)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    found = model_files()
    if isinstance(found, str) or not dense_status().enabled:
        sys.exit(f"needs the embeddings extra: {found if isinstance(found, str) else 'off'}")
    model, tokenizer = found
    children = []
    for _ in range(args.runs):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(ROOT)], capture_output=True, text=True, check=True
        )
        children.append(json.loads(out.stdout))
    rows = [
        (f"sha256 of model.onnx ({model.stat().st_size / 1e6:.1f} MB)", hash_times(model, 7)),
        (
            f"sha256 of tokenizer ({tokenizer.stat().st_size / 1e6:.2f} MB)",
            hash_times(tokenizer, 7),
        ),
        ("first dense_status(), fresh process (hashes both)", [c["first"] for c in children]),
        ("later dense_status() (finds the files again)", [c["again"] for c in children]),
        ("  of which the check of both files (a stat each)", [c["cached"] for c in children]),
        ("for scale: loading the model (first query embed)", [c["load"] for c in children]),
        ("for scale: embedding one query (model loaded)", [c["query"] for c in children]),
    ]
    print(
        f"{'what (ms; hashes 7 runs, processes ' + str(args.runs) + ')':<52}"
        f"{'min':>10}{'median':>10}{'max':>10}"
    )
    for label, values in rows:
        unit = "us" if label.startswith(("later", "  of")) else "ms"
        print(f"{label:<52}{spread(values, unit)}")


if __name__ == "__main__":
    main()
