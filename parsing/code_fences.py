"""Fenced code blocks of a reply, byte-exact, numbered in reply order (markdown-it-py).

A file body may travel as a fenced code block referenced from an action document
(``{"fence": 2}``, see actions/fence_refs.py). `code_fences` lists the reply's fences with
CommonMark's rules (a fence opens and closes on its own line; a closer is at least as long
as the opener, so ```` fences may hold ``` in the code): action documents (their spans are
passed as ``skip``) and reasoning blocks (``<think>``…) are not counted.

A body is the exact text between the opening and closing fence lines, line endings included
(markdown-it normalises CRLF: the body is sliced from the reply instead, unless the fence sits
in a container such as a list item, whose indentation CommonMark strips). A fence with no
closing line (the reply was cut off) is ``closed=False``: its body must never be used.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_REASONING = re.compile(r"<(think|thinking|reasoning)>.*?(?:</\1>|\Z)", re.S)
_NOT_NEWLINE = re.compile(r"[^\r\n]")


@dataclass(frozen=True, slots=True)
class CodeFence:
    """One fenced code block: ``number`` (1-based), its span in the reply, info, body."""

    number: int
    start: int
    end: int
    info: str
    body: str
    closed: bool

    @property
    def language(self) -> str:
        return self.info.split(maxsplit=1)[0] if self.info.strip() else ""


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark")


def code_fences(reply: str, skip: Sequence[tuple[int, int]] = ()) -> list[CodeFence]:
    """The reply's fenced code blocks outside the ``skip`` spans and reasoning blocks."""
    masked = _mask(reply, [*skip, *((m.start(), m.end()) for m in _REASONING.finditer(reply))])
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(reply))]
    fences: list[CodeFence] = []
    for token in _markdown().parse(masked):
        if token.type != "fence" or token.map is None:
            continue
        first, last = token.map
        closed = last - first >= 2 and _closes(reply, starts, last - 1, token.markup)
        body_end = last - 1 if closed else last
        exact = reply[_at(starts, first + 1, reply) : _at(starts, body_end, reply)]
        body = exact if _LINE_BREAK.sub("\n", exact) == token.content else token.content
        start, end = _at(starts, first, reply), _at(starts, last, reply)
        fences.append(CodeFence(len(fences) + 1, start, end, token.info, body, closed))
    return fences


def _mask(reply: str, spans: Sequence[tuple[int, int]]) -> str:
    """``reply`` with each span blanked (line breaks kept, so line numbers stay)."""
    if not spans:
        return reply
    pieces: list[str] = []
    cursor = 0
    for start, end in sorted(spans):
        start = max(start, cursor)
        if end <= start:
            continue
        pieces += [reply[cursor:start], _NOT_NEWLINE.sub(" ", reply[start:end])]
        cursor = end
    pieces.append(reply[cursor:])
    return "".join(pieces)


def _at(starts: list[int], line: int, reply: str) -> int:
    return starts[line] if line < len(starts) else len(reply)


def _closes(reply: str, starts: list[int], line: int, markup: str) -> bool:
    """Is ``line`` a closing fence for an opener ``markup`` (CommonMark)?"""
    text = reply[_at(starts, line, reply) : _at(starts, line + 1, reply)].strip()
    char = markup[0]
    return len(text) >= len(markup) and text == char * len(text)
