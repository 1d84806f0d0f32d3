"""PDFs in the index (issue 14 item 6) and bad input, through `agent-ls index` / `search`."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fpdf import FPDF

from actions.index import open_index
from actions.index.chunking import pdf_chunks
from actions.index.pdf import PDF_HINT, pdf_to_markdown
from actions.paths import Workspace
from tests.pdf_docs import ROWS, corrupt_pdf, manual_pdf, table_markdown
from tests.unit.index.test_cli import agent_ls

TABLE = table_markdown(ROWS)


def unprivileged() -> list[str]:
    """A prefix that makes root obey file modes (no DAC override), so chmod 000 means it."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root reads a chmod 000 file anyway and setpriv is missing")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


def test_a_pdf_becomes_markdown_with_its_table_whole_and_its_pages(tmp_path: Path) -> None:
    converted = pdf_to_markdown(manual_pdf(tmp_path / "manual.pdf").read_bytes())
    chunks = pdf_chunks("manual.pdf", converted)
    assert [(c.type, c.headings, c.start_page, c.end_page) for c in chunks] == [
        ("text", ("Spooler manual",), 1, 1),
        ("table", ("Spooler manual", "Limits"), 1, 2),  # runs onto page 2: still one table
        ("text", ("Spooler manual", "Maintenance"), 3, 3),
    ]
    table = chunks[1]
    assert table.content == TABLE  # 40 rows, the header repeated on page 2 dropped
    assert table.is_atomic
    assert table.summary.startswith("Table: Limits. Columns: setting, default, meaning.")
    assert converted.markdown.splitlines()[table.start_line - 1] == TABLE.splitlines()[0]
    assert chunks[2].content == "Empty the toner tray of the kumquat printer every Friday."


def test_index_and_search_pdfs_with_bad_input_failed_and_the_rest_indexed(
    tmp_path: Path,
) -> None:
    manual_pdf(tmp_path / "manual.pdf")
    corrupt_pdf(tmp_path / "broken.pdf")
    (tmp_path / "notes.md").write_text("# Notes\n\nThe kumquat printer jams on Mondays.\n")
    (tmp_path / "fake.md").write_bytes(b"# Looks like markdown\n\0\x01\x02 binary body")
    with open(tmp_path / "huge.md", "wb") as handle:
        handle.truncate(200 * 2**20)  # 200 MB, sparse
    indexed = agent_ls("index", "--workspace", str(tmp_path), "--json")
    assert indexed.returncode == 0, indexed.stderr
    result = json.loads(indexed.stdout)
    assert result["documents"] == {"pending": 0, "chunked": 0, "ready": 2, "failed": 3}
    reasons = {failure["path"]: failure["reason"] for failure in result["failures"]}
    assert reasons.pop("broken.pdf").startswith("unreadable PDF (")
    assert reasons == {
        "fake.md": "binary (NUL bytes)",
        "huge.md": f"too large ({200 * 2**20} bytes > {4 * 2**20} limit)",
    }
    found = agent_ls("search", "--workspace", str(tmp_path), "--json", "spooler limits ceiling")
    table = json.loads(found.stdout)[0]
    assert table["path"] == "manual.pdf"
    assert table["content"] == TABLE
    assert (table["type"], table["startPage"], table["endPage"]) == ("table", 1, 2)
    assert table["headings"] == ["Spooler manual", "Limits"]
    text = agent_ls("search", "--workspace", str(tmp_path), "--k", "1", "toner tray Friday")
    assert "1. manual.pdf (page 3) [text] — Spooler manual > Maintenance" in text.stdout
    again = json.loads(agent_ls("index", "--workspace", str(tmp_path), "--json").stdout)
    assert (again["indexed"], again["unchanged"]) == (0, 5)  # a PDF is converted once


def test_without_the_pdf_extra_a_pdf_fails_saying_how_to_enable_it(tmp_path: Path) -> None:
    manual_pdf(tmp_path / "manual.pdf")
    (tmp_path / "notes.md").write_text("Notes.\n")
    no_pdfplumber = (
        "import sys; sys.modules['pdfplumber'] = None; from server.__main__ import main; "
        "sys.exit(main())"
    )
    done = subprocess.run(
        [sys.executable, "-c", no_pdfplumber, "index", "--workspace", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["failures"] == [{"path": "manual.pdf", "reason": PDF_HINT}]
    assert "pip install 'agent-ls[pdf]'" in PDF_HINT
    assert result["documents"]["ready"] == 1


def test_an_unreadable_file_fails_with_a_reason(tmp_path: Path) -> None:
    prefix = unprivileged()
    (tmp_path / "locked.md").write_text("locked away")
    (tmp_path / "locked.md").chmod(0)
    (tmp_path / "open.md").write_text("Open to all.\n")
    done = subprocess.run(
        [*prefix, sys.executable, "-m", "server", "index", "--workspace", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["failures"] == [{"path": "locked.md", "reason": "unreadable (Permission denied)"}]
    assert result["documents"]["ready"] == 1


def test_a_pdf_without_text_fails_saying_so(tmp_path: Path) -> None:
    blank = FPDF()
    blank.add_page()
    blank.rect(20, 20, 50, 50)  # a drawing, no text (like a scanned page)
    blank.output(str(tmp_path / "scan.pdf"))
    index = open_index(Workspace(tmp_path), url=f"sqlite:{tmp_path.parent / 'scan.sqlite3'}")
    report = asyncio.run(index.update_all())
    index.close()
    assert report.failed == {"scan.pdf": "no text in the PDF (scanned pages? no OCR is done)"}
