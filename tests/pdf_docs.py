"""PDFs for the tests, written by fpdf2 at test time (no binary fixtures)."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

ROWS = [("setting", "default", "meaning")] + [
    (f"limit_{i:02d}", str(i * 10), f"ceiling number {i} for the spooler") for i in range(40)
]


def table_markdown(rows: list[tuple[str, str, str]]) -> str:
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    lines.insert(1, "|---|---|---|")
    return "\n".join(lines)


def manual_pdf(path: Path) -> Path:
    """Two headings, prose, a 40-row table that runs onto page 2, prose on page 3."""
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", "B", 20)
    pdf.cell(0, 12, "Spooler manual", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", size=11)
    pdf.multi_cell(
        0,
        6,
        "The spooler queues print jobs for the whole office. It keeps every job on disk "
        "until a printer accepts it.",
    )
    pdf.ln(4)
    pdf.set_font("helvetica", "B", 15)
    pdf.cell(0, 10, "Limits", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", size=11)
    with pdf.table() as table:
        for values in ROWS:
            row = table.row()
            for value in values:
                row.cell(value)
    pdf.add_page()
    pdf.set_font("helvetica", "B", 15)
    pdf.cell(0, 10, "Maintenance", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", size=11)
    pdf.multi_cell(0, 6, "Empty the toner tray of the kumquat printer every Friday.")
    pdf.output(str(path))
    return path


def corrupt_pdf(path: Path) -> Path:
    """A PDF cut in the middle (the header is right, the rest is gone)."""
    whole = manual_pdf(path).read_bytes()
    path.write_bytes(whole[: len(whole) // 3])
    return path
