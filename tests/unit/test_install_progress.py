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

import pytest

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


@pytest.mark.parametrize(
    ("stamp", "spec"),
    [
        (".installed-core", "'.'"),
        (".installed-local", "'.[local]'"),
        (".installed", "'.[test,local]'"),
    ],
)
def test_each_install_asks_pip_for_its_extras(stamp: str, spec: str, tmp_path: Path) -> None:
    """What `make demo`, `make demo-local` and `make test` would run, read with `make -n` for
    a fresh virtualenv: one pip install of exactly their extras (a comma in an extras list
    once split a make function's arguments and broke the shell line)."""
    venv = tmp_path / "venv"
    done = subprocess.run(
        ["make", "-n", f"VENV={venv}", str(venv / stamp)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    installs = [line for line in done.stdout.splitlines() if " -m pip install -v -e " in line]
    assert len(installs) == 1, done.stdout
    assert f" -m pip install -v -e {spec} 2>&1 " in installs[0]
    syntax = subprocess.run(["bash", "-n", "-c", installs[0]], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr
