"""PDF documents -> markdown, locally (the optional extra ``pdf``: pdfplumber, MIT).

Each page is read in order: its tables (pdfplumber's ruling-line detection) become GFM
markdown tables at their place on the page, the text around them becomes paragraphs (a gap
larger than a line's height starts a new one) and lines set in a larger font than the body
become headings (``#`` for the largest size, ``##``, ``###`` for the next ones); a table
running from one page onto the next is one table. So a PDF goes
through the same element pipeline as a markdown file: atomic tables with a summary, prose
chunks with their heading path. ``PdfText.pages`` gives the page of every markdown line, so a
chunk can say on which pages it is.

Nothing is downloaded and no model runs: text and ruling lines are read from the file. A PDF
that cannot be parsed (corrupt, encrypted) raises ``PdfError`` with the reason, and so does
one whose compressed streams inflate beyond ``MAX_INFLATED`` (a "PDF bomb", measured before
pdfminer reads it). The indexer converts in a child process bounded in memory and time
(``pdf_process.convert_pdf``): the limits that stop what this check does not foresee.
"""

from __future__ import annotations

import functools
import io
import itertools
import re
import statistics
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

PDF_HINT = "PDF support is not installed: pip install 'agent-ls[pdf]' (pdfplumber)"
MAX_PAGES = 2000
HEADING_RATIO = 1.15  # a line whose font is this much larger than the body's is a heading
HEADING_LEVELS = 3
MAX_INFLATED = 256 * 2**20  # bytes all the compressed streams of one PDF may inflate to
_INPUT, _OUTPUT = 2**20, 2**24  # compressed bytes fed, inflated bytes taken at a time


class PdfError(Exception):
    """The PDF cannot be converted (the message says why)."""


_STREAM = re.compile(rb"(?<!end)stream\r?\n")


def check_inflation(data: bytes, limit: int = MAX_INFLATED) -> None:
    """``PdfError`` when one FlateDecode stream, or all of them together, inflate beyond
    ``limit`` bytes: a "PDF bomb" (zeros compress about 1000:1) is refused after inflating
    ``limit`` bytes into a small buffer, never the whole stream, and before pdfminer, which
    would hold every inflated byte (and more) in memory."""
    total = 0
    for found in _STREAM.finditer(data):
        total += _inflated(data, found.end(), limit - total + 1)
        if total > limit:
            raise PdfError(
                f"its compressed streams inflate to more than {limit // 2**20} MB"
                " (a decompression bomb?)"
            )


def _inflated(data: bytes, start: int, limit: int) -> int:
    """How many bytes the zlib stream at ``start`` inflates to, counted up to ``limit``
    (0 when it is not a zlib stream)."""
    inflater = zlib.decompressobj()
    view = memoryview(data)[start:]
    total = position = 0
    while total < limit and not inflater.eof:
        if inflater.unconsumed_tail:
            chunk: bytes | memoryview = inflater.unconsumed_tail
        elif position < len(view):
            chunk, position = view[position : position + _INPUT], position + _INPUT
        else:
            break
        try:
            total += len(inflater.decompress(chunk, _OUTPUT))
        except zlib.error:  # not compressed (or not zlib): pdfminer decides
            break
    return total


@dataclass(frozen=True)
class PdfText:
    """The markdown of a PDF and the 1-based page of each of its lines."""

    markdown: str
    pages: tuple[int, ...]

    def page_span(self, start_line: int, end_line: int) -> tuple[int, int]:
        """The first and last page of markdown lines ``start_line..end_line`` (1-based)."""
        if not self.pages:
            return 1, 1
        last = len(self.pages)
        return self.pages[min(start_line, last) - 1], self.pages[min(end_line, last) - 1]


@functools.cache
def available() -> bool:
    """Whether the ``pdf`` extra is installed (and importable)."""
    try:
        import pdfplumber  # noqa: F401
    except ImportError:
        return False
    return True


def pdf_to_markdown(
    data: bytes, max_pages: int = MAX_PAGES, max_inflated: int = MAX_INFLATED
) -> PdfText:
    """Convert a PDF's bytes (see the module docstring); ``PdfError`` before any parsing
    when a compressed stream inflates beyond ``max_inflated`` bytes."""
    import pdfplumber

    check_inflation(data, max_inflated)
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            if len(pdf.pages) > max_pages:
                raise PdfError(f"too many pages ({len(pdf.pages)} > {max_pages} limit)")
            pages = [_page_items(page) for page in pdf.pages]
    except (PdfError, MemoryError):
        raise
    except Exception as error:  # pdfminer raises many kinds on hostile input
        if _out_of_memory(error):  # pdfplumber wraps what pdfminer raised
            raise MemoryError(str(error)) from error
        detail = str(error).strip() or type(error).__name__
        raise PdfError(f"unreadable PDF ({detail})") from None
    body = _body_size(pages)
    sizes = sorted(
        {size for items in pages for _, size, _, _ in items if size >= body * HEADING_RATIO},
        reverse=True,
    )[:HEADING_LEVELS]
    lines: list[str] = []
    line_pages: list[int] = []
    for number, items in enumerate(_join_tables(pages), 1):
        for block, block_pages in _blocks(items, sizes, number):
            if lines:
                lines.append("")
                line_pages.append(block_pages[0])
            lines += block.split("\n")
            line_pages += block_pages
    return PdfText("\n".join(lines) + ("\n" if lines else ""), tuple(line_pages))


def _out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` is, or wraps, a ``MemoryError``."""
    seen: list[BaseException] = [error]
    while seen:
        current = seen.pop()
        if isinstance(current, MemoryError):
            return True
        seen += [cause for cause in (current.__cause__, current.__context__) if cause]
        seen += [arg for arg in current.args if isinstance(arg, BaseException)]
    return False


def _join_tables(pages: list[list[Item]]) -> list[list[Item]]:
    """A table that ends a page and one of as many columns that starts the next are one table
    (its header row, when repeated, dropped): it stays one atomic chunk, on both pages."""
    for before, after in itertools.pairwise(pages):
        if not (before and after and before[-1][3] and after[0][3]):
            continue
        first, second = before[-1][3], after[0][3]
        if len(first[0][1]) != len(second[0][1]):
            continue
        rows = second[1:] if second[0][1] == first[0][1] else second
        before[-1] = (*before[-1][:3], [*first, *rows])
        after[0] = (after[0][0], 0.0, "continued", [])
    return pages


# An item of a page: (top, font size, text, []) for a text line, (top, 0, "", rows) for a
# table (each row with its page), (top, 0, "continued", []) for the part of a table joined
# to the previous page's.
Row = tuple[int, list[str | None]]
Item = tuple[float, float, str, list[Row]]


def _page_items(page: Any) -> list[Item]:
    tables = page.find_tables()
    boxes = [table.bbox for table in tables]
    number = int(page.page_number)
    items: list[Item] = [
        (table.bbox[1], 0.0, "", [(number, row) for row in table.extract()]) for table in tables
    ]

    def outside(obj: dict[str, Any]) -> bool:
        middle_x = (obj["x0"] + obj["x1"]) / 2
        middle_y = (obj["top"] + obj["bottom"]) / 2
        return not any(x0 <= middle_x <= x1 and y0 <= middle_y <= y1 for x0, y0, x1, y1 in boxes)

    text = page.filter(outside) if boxes else page
    for line in text.extract_text_lines(strip=True):
        words = " ".join(line["text"].replace("\0", "").split())
        if words:
            size = statistics.median(char["size"] for char in line["chars"])
            items.append((line["top"], float(size), words, []))
    items.sort(key=lambda item: item[0])
    return items


def _body_size(pages: Sequence[Sequence[Item]]) -> float:
    """The font size most characters are set in."""
    weights: dict[float, int] = {}
    for items in pages:
        for _, size, text, _ in items:
            if size:
                weights[round(size, 1)] = weights.get(round(size, 1), 0) + len(text)
    return max(weights, key=lambda size: weights[size]) if weights else 0.0


def _blocks(
    items: Sequence[Item], heading_sizes: Sequence[float], page: int
) -> list[tuple[str, list[int]]]:
    """Markdown blocks of one page: headings, paragraphs and tables in reading order, each
    with the page of each of its lines."""
    blocks: list[tuple[str, list[int]]] = []
    paragraph: list[str] = []
    bottom = 0.0
    for top, size, text, rows in items:
        heading = next(
            (level for level, big in enumerate(heading_sizes, 1) if size and size >= big - 0.05),
            0,
        )
        new_paragraph = not paragraph or heading or top - bottom > size * 0.9
        if paragraph and (size == 0 or new_paragraph):
            blocks.append((" ".join(paragraph), [page]))
            paragraph = []
        if size == 0:
            if rows and (table := markdown_table([cells for _, cells in rows])):
                first = rows[0][0]
                blocks.append((table, [first, first, *(number for number, _ in rows[1:])]))
        elif heading:
            blocks.append(("#" * heading + " " + text, [page]))
        else:
            paragraph.append(text)
        bottom = top + (size or 0)
    if paragraph:
        blocks.append((" ".join(paragraph), [page]))
    return blocks


def markdown_table(rows: Sequence[Sequence[str | None]]) -> str:
    """A GFM table of ``rows`` (the first is the header); cells on one line, ``|`` escaped."""
    width = max((len(row) for row in rows), default=0)
    if not width:
        return ""
    cells = [[_cell(cell) for cell in row] + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(row) + " |" for row in cells]
    lines.insert(1, "|" + "---|" * width)
    return "\n".join(lines)


def _cell(cell: str | None) -> str:
    return " ".join((cell or "").split()).replace("|", "\\|")
