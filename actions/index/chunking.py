"""One document's text -> chunks: markdown by elements, source by definitions, the rest by lines.

Small-to-big: a table or long code block gets a summary (``summary.fallback_summary`` here;
``apply_summaries`` swaps in a ``Summarizer``'s sentence) and its ``indexed_text`` is the
heading path plus that summary; prose and short code are indexed with their own text. The
chunk's ``content`` is always the original element.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterable
from dataclasses import replace
from pathlib import PurePosixPath

from actions.index.markdown_elements import Element, chunk_elements, parse_elements, split_lines
from actions.index.model import Chunk, ChunkType
from actions.index.pdf import PdfText
from actions.index.source_chunks import LANGUAGES, chunk_source, line_windows
from actions.index.summary import Summarizer, fallback_summary, needs_summary

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdx", ".mdown", ".mkd", ".txt", ".rst"})
CAPTION_CHARS = 300
CHUNKS_VERSION = 2  # 2: a markdown front matter is metadata, no heading (issue 27)
# the stores mark their markdown documents changed when it changes (SQLite: schema 7;
# PostgreSQL: ``chunks_version`` in its meta table): the next update cuts them again


def markdown_paths(paths: Iterable[str]) -> list[str]:
    """The markdown documents among ``paths`` (what a change of CHUNKS_VERSION re-cuts)."""
    return [path for path in paths if kind_of(path) == "markdown"]


def kind_of(path: str) -> str:
    """``markdown``, a language name from ``LANGUAGES``, or ``text``."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in MARKDOWN_SUFFIXES or (not suffix and PurePosixPath(path).name.isupper()):
        return "markdown"  # README, LICENSE, CHANGELOG
    return LANGUAGES.get(suffix, "text")


def chunk_document(path: str, text: str, kind: str = "") -> list[Chunk]:
    """The chunks of ``path`` whose content is ``text``, in document order (``kind``: as
    ``kind_of`` names them; by default ``kind_of(path)``)."""
    kind = kind or kind_of(path)
    if kind == "markdown":
        elements = parse_elements(text)
        captions = _captions(elements)
        used = {
            caption
            for element in elements
            if needs_summary(element) and (caption := captions.get(element.start_line))
        }
        chunked = [  # a paragraph alone before a table is its caption, not a passage of its own
            element
            for element in chunk_elements(elements)
            if not (element.type == "text" and element.content in used)
        ]
        pairs = [(element, captions.get(element.start_line, "")) for element in chunked]
    elif kind == "text":
        windows = line_windows(split_lines(text), 1, len(split_lines(text)), (), "")
        pairs = [(replace(element, type="text"), "") for element in windows]
    else:
        pairs = [(element, "") for element in chunk_source(text, kind)]
    return [
        _chunk(path, position, element, caption)
        for position, (element, caption) in enumerate(pairs)
    ]


def pdf_chunks(path: str, converted: PdfText) -> list[Chunk]:
    """The chunks of a PDF's markdown conversion, each with the pages it spans."""
    chunks = chunk_document(path, converted.markdown, kind="markdown")
    return [
        replace(chunk, start_page=first, end_page=last)
        for chunk in chunks
        for first, last in [converted.page_span(chunk.start_line, chunk.end_line)]
    ]


def _captions(elements: list[Element]) -> dict[int, str]:
    """A short paragraph right above a table/code block is its caption (by start line)."""
    found: dict[int, str] = {}
    for before, element in itertools.pairwise(elements):
        if (
            element.is_atomic
            and before.type == "text"
            and len(before.content) <= CAPTION_CHARS
            and before.headings == element.headings
        ):
            found[element.start_line] = before.content
    return found


def _chunk(path: str, position: int, element: Element, caption: str) -> Chunk:
    summary = fallback_summary(element, caption) if needs_summary(element) else ""
    kind: ChunkType = "text" if element.type == "heading" else element.type
    small = summary or (f"{caption}\n{element.content}" if caption else element.content)
    return Chunk(
        document=path,
        position=position,
        type=kind,
        content=element.content,
        indexed_text=indexed_text(path, (*element.headings, *element.names), small),
        summary=summary,
        is_atomic=element.is_atomic,
        headings=element.headings,
        start_line=element.start_line,
        end_line=element.end_line,
        language=element.language,
    )


def indexed_text(path: str, headings: tuple[str, ...], small: str) -> str:
    """What is matched: the file's path, the heading path, then the summary or the text."""
    return "\n".join([path, " > ".join(headings), small])


def summarized_by_model(chunk: Chunk) -> bool:
    """Tables anywhere, long code blocks of documents (markdown, PDF); a long definition of
    a source file keeps its deterministic summary (its names and code say enough, and a
    repository has thousands)."""
    if chunk.type == "table":
        return True
    return chunk.start_page > 0 or kind_of(chunk.document) == "markdown"


async def apply_summaries(chunks: list[Chunk], summarizer: Summarizer) -> list[Chunk]:
    """Replace fallback summaries with the summarizer's sentence where it gives one (asked
    together: the summarizer bounds how many at once). The fallback's words stay indexed
    after the sentence (its caption and header row still find the table); the sentence is
    the chunk's ``summary``."""

    async def one(chunk: Chunk) -> Chunk:
        if not chunk.summary or not summarized_by_model(chunk):
            return chunk
        element = Element(
            chunk.type,
            chunk.content,
            chunk.start_line,
            chunk.end_line,
            chunk.headings,
            chunk.language,
            chunk.is_atomic,
        )
        sentence = await summarizer.summarize(element, "", chunk.document)
        if not sentence or not sentence.strip():
            return chunk
        summary = " ".join(sentence.split())
        text = indexed_text(chunk.document, chunk.headings, f"{summary}\n{chunk.summary}")
        return replace(chunk, summary=summary, indexed_text=text)

    return list(await asyncio.gather(*(one(chunk) for chunk in chunks)))
