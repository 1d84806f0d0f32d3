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


def bomb_pdf(path: Path, inflated_mb: int = 2048) -> Path:
    """A "PDF bomb": one page whose content stream is ``inflated_mb`` MB of zeros compressed
    about 1000:1 (FlateDecode), so the file is a few MB and parsing it inflates the whole
    stream. Written as raw PDF bytes; the stream is one compressed MB repeated (each MB ends
    with a full flush, so every one compresses to the same bytes) with the right checksum, so
    the test never compresses, nor holds, the inflated stream."""
    import struct
    import zlib

    block = b"0" * 2**20
    raw = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate: header and trailer below
    raw.compress(block)
    raw.flush(zlib.Z_FULL_FLUSH)
    repeated = raw.compress(block) + raw.flush(zlib.Z_FULL_FLUSH)  # the steady state
    checksum = 1
    for _ in range(inflated_mb):
        checksum = zlib.adler32(block, checksum)
    stream = b"\x78\xda" + repeated * inflated_mb + raw.flush() + struct.pack(">I", checksum)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    path.write_bytes(bytes(out))
    return path
