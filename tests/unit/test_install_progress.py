"""`make install`'s progress filter on a recorded `pip install -v` log (compiling llama.cpp).

The log is the real output of the first install on a 2-core machine: ninja's steps arrive as
`  [28/193] /usr/bin/g++ ...`, 193 of them among ~900 lines.
"""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "tests/fixtures/install/pip-v-llama-cpp.log.gz"


def shown(log: bytes) -> list[str]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples/install_progress.py")],
        input=log,
        capture_output=True,
        check=True,
    )
    # Each line is "  [  12s] what": the timing is the reader's clock, the rest is the log's.
    return [re.sub(r"^\s*\[\s*\d+s\] ", "", line) for line in done.stdout.decode().splitlines()]


def test_the_compile_shows_its_step_every_tenth() -> None:
    lines = shown(gzip.decompress(LOG.read_bytes()))
    steps = [line for line in lines if line.startswith("compiling llama-cpp-python: step ")]
    assert steps[0] == "compiling llama-cpp-python: step 1/193 (0%)"
    assert steps[-1] == "compiling llama-cpp-python: step 193/193 (100%)"
    assert [int(re.search(r"\((\d+)%\)", s).group(1)) // 10 for s in steps] == list(range(11))  # type: ignore[union-attr]


def test_a_900_line_log_is_a_screenful_ending_in_what_was_installed() -> None:
    raw = gzip.decompress(LOG.read_bytes())
    lines = shown(raw)
    assert len(raw.splitlines()) > 800
    assert len(lines) <= 30
    assert "building llama-cpp-python" in lines
    assert lines[-1].startswith("Successfully installed ")
    assert not any("/usr/bin/g++" in line for line in lines)


def test_an_unknown_log_shows_nothing_it_does_not_understand() -> None:
    assert shown(b"random noise\n[not a step]\n  -- Installing: /x\n") == []
