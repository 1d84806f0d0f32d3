"""What reading the project rules adds to each turn (they are read again every turn).

A temporary workspace with the worst case within the cap: the user's AGENTS.md, a root
AGENTS.md, a CLAUDE.md and an AGENTS.md on the way down to a file six folders deep, a
.gitignore, 40 KB of rules in all (so the 32 KB cut happens). Each sample is one
`actions.rules.load_rules` call as a turn makes it (stats, the .gitignore checks, bounded
reads, decoding) plus the prompt section it renders. Prints min / median / max over RUNS
runs of the median of SAMPLES samples, and the load average.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from actions.paths import Workspace
from actions.rules import load_rules

RUNS = int(os.environ.get("BENCH_RUNS", "5"))
SAMPLES = int(os.environ.get("BENCH_SAMPLES", "200"))


def project(base: Path) -> tuple[Path, Path, Path]:
    root = base / "ws"
    deep = root / "a/b/c/d/e/f"
    deep.mkdir(parents=True)
    (root / ".gitignore").write_text("build/\nnode_modules/\n")
    (root / "AGENTS.md").write_text("root rule\n" * 1000)  # 10 KB
    (root / "a/b/CLAUDE.md").write_text("claude rule\n" * 1000)  # 12 KB
    (deep / "AGENTS.md").write_text("deep rule\n" * 1500)  # 15 KB
    user = base / "config/agent-ls/AGENTS.md"
    user.parent.mkdir(parents=True)
    user.write_text("user rule\n" * 300)  # 3 KB
    context = deep / "mod.py"
    context.write_text("x = 1\n")
    return root, context, user


def one_run(root: Path, context: Path, user: Path) -> float:
    workspace = Workspace(root)
    times = []
    for _ in range(SAMPLES):
        start = time.perf_counter()
        load_rules([workspace], context, user_file=user).prompt_section()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root, context, user = project(Path(tmp))
        medians = [one_run(root, context, user) for _ in range(RUNS)]
        cut = load_rules([Workspace(root)], context, user_file=user).cut
    print(f"rules read per turn (4 files, 40 KB, cut: {cut}), {RUNS} runs x {SAMPLES}")
    print("| min ms | median ms | max ms |")
    print("|---|---|---|")
    print(f"| {min(medians):.3f} | {statistics.median(medians):.3f} | {max(medians):.3f} |")
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
