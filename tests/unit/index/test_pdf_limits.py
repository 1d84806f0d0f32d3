"""PDF conversion bounded (issue 21 item 5): a stream that inflates too far is refused before
pdfminer reads it; what gets past that check is stopped by the child process's memory limit;
an ordinary PDF converts in the child exactly as in-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from actions.index.pdf import PdfError, pdf_to_markdown
from actions.index.pdf_process import PdfLimits, convert_pdf
from tests.pdf_docs import bomb_pdf, manual_pdf


def test_a_bomb_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    bomb = bomb_pdf(tmp_path / "bomb.pdf", inflated_mb=300).read_bytes()
    with pytest.raises(PdfError, match=r"^its compressed streams inflate to more than 256 MB"):
        pdf_to_markdown(bomb)


def test_what_passes_the_check_is_stopped_by_the_memory_limit(tmp_path: Path) -> None:
    bomb = bomb_pdf(tmp_path / "bomb.pdf", inflated_mb=240).read_bytes()  # under 256 MB
    with pytest.raises(PdfError, match=r"^the conversion needs more than 160 MB of memory"):
        convert_pdf(bomb, PdfLimits(memory_mb=160))


def test_an_ordinary_pdf_converts_in_the_child_as_in_process(tmp_path: Path) -> None:
    data = manual_pdf(tmp_path / "manual.pdf").read_bytes()
    assert convert_pdf(data) == pdf_to_markdown(data)
