"""Split a markdown document into elements for retrieval (SPEC §10), with markdown-it-py.

``parse_elements(text)`` returns the document's blocks in order, each an ``Element`` of type
``heading``, ``text``, ``list``, ``table`` or ``code``:
- ``content`` is the element's exact text in the document (its whole source lines, line
  endings inside kept, the last one dropped), so a table or code block returned by a search
  is byte-identical to the file;
- ``start_line`` / ``end_line`` are 1-based and inclusive;
- ``headings`` is the heading path above the element (``("Install", "Linux")``): a heading
  replaces the one of its level and clears every deeper level. A heading element carries the
  path ending with itself. ATX and setext headings count; ``#`` lines inside code fences do
  not (the CommonMark parser never sees them as headings). A heading's lines are joined
  with spaces (a setext heading may span several).
- a front matter block opening the file (YAML between ``---`` and ``---`` / ``...``, TOML
  between ``+++`` lines) is document metadata, not an element: CommonMark alone would read
  YAML's closing ``---`` as the underline of a setext heading, whose text (``title: npm-ci
  section: 1 description: ...``) would head every chunk of the file (issue 27).
- tables and code blocks are atomic: never split, whatever their size.

``chunk_elements(elements)`` merges consecutive prose and lists of one section (type ``list``
when only lists were merged, else ``text``) and cuts the run into chunks of about
``max_chars`` characters on sentence boundaries, each chunk after the first repeating about
``overlap_words`` words of the previous one. Heading elements are dropped (each chunk carries
its heading path), as are HTML comment blocks (metadata such as ``<!-- YAML ... -->``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # markdown-it-py is imported on the first parse (a search parses nothing)
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

ElementType = Literal["heading", "text", "list", "table", "code"]

MAX_CHARS = 1500
OVERLAP_WORDS = 75

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_SENTENCE_END = re.compile(r"(?<=[.!?:;])[\"')\]]*\s+|\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)")
_WORD = re.compile(r"\S+")

_BLOCK_TYPES: dict[str, ElementType] = {
    "paragraph_open": "text",
    "blockquote_open": "text",
    "html_block": "text",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "table_open": "table",
    "fence": "code",
    "code_block": "code",
}


@dataclass(frozen=True)
class Element:
    """One block of a document; ``content`` is its exact source text."""

    type: ElementType
    content: str
    start_line: int
    end_line: int
    headings: tuple[str, ...] = ()
    language: str = ""
    is_atomic: bool = False
    names: tuple[str, ...] = ()  # source: the qualified names defined in it (``Store.load``)


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` with their endings (``\\n``, ``\\r\\n`` or ``\\r``)."""
    return _LINE.findall(text)


def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table")


@functools.cache
def _full() -> MarkdownIt:
    return _parser()


@functools.cache
def _blocks_only() -> MarkdownIt:
    """Only headings need their inline text: a third of the parse time goes to the inline
    parsing of every paragraph and table cell otherwise; tables without their cells."""
    from actions.index.markdown_table import lean_table

    parser = _parser().disable("inline")
    parser.block.ruler.at("table", lean_table, {"alt": ["paragraph", "reference"]})
    return parser


def parse_elements(text: str) -> list[Element]:
    """The top-level blocks of ``text`` in document order (see the module docstring)."""
    lines = split_lines(text)
    front = front_matter_lines(lines)
    tokens = _blocks_only().parse("\n" * front + "".join(lines[front:]) if front else text)
    levels: dict[int, str] = {}
    elements: list[Element] = []
    for index, token in enumerate(tokens):
        if token.level != 0 or token.map is None:
            continue
        start, end = token.map
        if token.type == "heading_open":
            title = _inline_text(tokens[index + 1]) if index + 1 < len(tokens) else ""
            depth = int(token.tag[1:])
            levels = {level: name for level, name in levels.items() if level < depth}
            levels[depth] = title
            path = tuple(levels[level] for level in sorted(levels))
            elements.append(_element("heading", lines, start, end, path))
            continue
        kind = _BLOCK_TYPES.get(token.type)
        if kind is None:
            continue  # thematic breaks, closing tokens
        path = tuple(levels[level] for level in sorted(levels))
        language = token.info.strip().split(" ")[0] if token.type == "fence" else ""
        elements.append(_element(kind, lines, start, end, path, language))
    return [element for element in elements if element.content.strip()]


def front_matter_lines(lines: Sequence[str]) -> int:
    """How many lines the front matter block opening the document takes (0: none)."""
    fence = lines[0].rstrip() if lines else ""
    if fence not in _FRONT_MATTER or len(lines) < 3 or not _KEY.match(lines[1]):
        return 0  # a thematic break opening the text: not metadata
    for number, line in enumerate(lines[1:], start=1):
        if line.rstrip() in _FRONT_MATTER[fence]:
            return number + 1
    return 0


_FRONT_MATTER = {"---": ("---", "..."), "+++": ("+++",)}  # YAML, TOML: fence -> closings
_KEY = re.compile(r"[\w-]+\s*[:=]")  # a front matter's first line: ``title: ...``


def _inline_text(token: Token) -> str:
    if token.type != "inline":
        return ""
    children = _full().parseInline(token.content)[0].children if token.content else []
    parts = [
        " " if child.type in _BREAKS else child.content
        for child in children or []
        if child.type in _INLINE_TEXT or child.type in _BREAKS
    ]
    return " ".join("".join(parts).split()) or token.content.strip()


_INLINE_TEXT = frozenset({"text", "code_inline", "html_inline"})
_BREAKS = frozenset({"softbreak", "hardbreak"})


def _element(
    kind: ElementType,
    lines: Sequence[str],
    start: int,
    end: int,
    headings: tuple[str, ...],
    language: str = "",
) -> Element:
    end = min(end, len(lines))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1  # markdown-it counts trailing blank lines into some blocks
    content = strip_last_eol("".join(lines[start:end]))
    atomic = kind in ("table", "code")
    return Element(kind, content, start + 1, max(start + 1, end), headings, language, atomic)


def strip_last_eol(text: str) -> str:
    if text.endswith("\r\n"):
        return text[:-2]
    if text.endswith(("\n", "\r")):
        return text[:-1]
    return text


def chunk_elements(
    elements: Sequence[Element],
    *,
    max_chars: int = MAX_CHARS,
    overlap_words: int = OVERLAP_WORDS,
) -> list[Element]:
    """Elements ready to index: prose merged per section and cut on sentences (see above)."""
    chunks: list[Element] = []
    run: list[Element] = []

    def flush() -> None:
        if run:
            chunks.extend(_cut_run(run, max_chars, overlap_words))
            run.clear()

    for element in elements:
        if element.type in ("text", "list"):
            if _is_comment(element):
                continue  # <!-- ... --> blocks are metadata, not prose
            if run and run[-1].headings != element.headings:
                flush()
            run.append(element)
            continue
        flush()
        if element.type != "heading":  # a heading lives on in its elements' paths
            chunks.append(element)
    flush()
    return chunks


def _is_comment(element: Element) -> bool:
    text = element.content.strip()
    return text.startswith("<!--") and text.endswith("-->") and text.count("<!--") == 1


def _cut_run(run: Sequence[Element], max_chars: int, overlap_words: int) -> list[Element]:
    """Merge a run of prose and lists of one section; cut it when longer than ``max_chars``."""
    kind: ElementType = "list" if all(element.type == "list" for element in run) else "text"
    first = replace(run[0], type=kind)
    text = "\n\n".join(element.content for element in run)
    # line of every character: merged paragraphs keep their own source line numbers
    starts: list[tuple[int, int]] = []  # (offset in text, source line)
    offset = 0
    for element in run:
        for number, line in enumerate(split_lines(element.content), element.start_line):
            starts.append((offset, number))
            offset += len(line)
        offset += 2
    if len(text) <= max_chars:
        return [replace(first, content=text, end_line=run[-1].end_line)]
    pieces: list[Element] = []
    for begin, finish in cut_spans(text, max_chars, overlap_words):
        body = text[begin:finish].strip()
        if not body:
            continue
        lead = begin + (len(text[begin:finish]) - len(text[begin:finish].lstrip()))
        pieces.append(
            replace(
                first,
                content=body,
                start_line=_line_at(starts, lead),
                end_line=_line_at(starts, max(lead, finish - 1)),
            )
        )
    return pieces


def _line_at(starts: Sequence[tuple[int, int]], offset: int) -> int:
    line = starts[0][1]
    for start, number in starts:
        if start > offset:
            break
        line = number
    return line


def cut_spans(text: str, max_chars: int, overlap_words: int) -> list[tuple[int, int]]:
    """``(begin, end)`` spans of ``text``: sentence-aligned, <= ``max_chars`` (unless a
    single sentence is longer: then it is cut between words), overlapping by about
    ``overlap_words`` words."""
    sentences = _sentences(text, max_chars)
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(sentences):
        begin = sentences[index][0]
        last = index
        while last + 1 < len(sentences) and sentences[last + 1][1] - begin <= max_chars:
            last += 1
        spans.append((begin, sentences[last][1]))
        if last + 1 >= len(sentences):
            break
        back = last + 1
        words = 0
        while back - 1 > index:
            words += len(_WORD.findall(text[sentences[back - 1][0] : sentences[back - 1][1]]))
            if words > overlap_words:
                break
            back -= 1
        index = back
    return spans


def _sentences(text: str, max_chars: int) -> list[tuple[int, int]]:
    """Sentence spans; a sentence longer than ``max_chars`` is cut between words."""
    spans: list[tuple[int, int]] = []
    begin = 0
    for match in _SENTENCE_END.finditer(text):
        if match.start() > begin:
            spans.extend(_cut_long(text, begin, match.start(), max_chars))
        begin = match.end()
    if begin < len(text):
        spans.extend(_cut_long(text, begin, len(text), max_chars))
    return spans


def _cut_long(text: str, begin: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    if end - begin <= max_chars:
        return [(begin, end)]
    spans: list[tuple[int, int]] = []
    while end - begin > max_chars:
        cut = text.rfind(" ", begin, begin + max_chars)
        cut = cut if cut > begin else begin + max_chars
        spans.append((begin, cut))
        begin = cut + 1 if text[cut : cut + 1] == " " else cut
    if begin < end:
        spans.append((begin, end))
    return spans
