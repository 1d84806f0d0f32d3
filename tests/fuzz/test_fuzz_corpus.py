"""Every input that ever made the reply parser fail, replayed on every run (not opt-in).

tests/fuzz/corpus/ holds them, one file each (exact bytes, UTF-8): crashes (json-repair's
own AssertionError), exponential and quadratic inputs, replies the streaming parser split
otherwise than the whole-reply parse. When the fuzz target (test_fuzz_parse.py) or a user
finds a new one, add its shrunk form there: the opt-in fuzz target also mutates these.
The same properties as the fuzz target: never raises, spans tile the reply, streaming in any
chunking gives the whole-reply blocks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.properties import check

CORPUS = Path(__file__).parent / "corpus"
CASES = sorted(CORPUS.glob("*.txt"))


def test_corpus_is_present() -> None:
    assert len(CASES) >= 8


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
@pytest.mark.parametrize("cut_every", [1, 2, 3, 4, 7, 16, 64, 4096])
def test_corpus_input(path: Path, cut_every: int) -> None:
    check(path.read_bytes().decode("utf-8"), cut_every)
