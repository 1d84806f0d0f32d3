"""Code fences and reasoning blocks: the JSON fence parser and the opaque regions.

- A fence *opens* at a run of at least three backticks or tildes anywhere on a line (models
  write ``Here it is: ```json``), then an optional info word. ``json`` / ``jsonc`` / ``json5``
  (any case) open a JSON fence; an untagged fence is JSON when its body starts with ``{`` or
  ``[`` and decodes; any other language (```python) is an opaque code block: text, never
  searched.
- A fence *closes* only at a closing fence line (CommonMark): a line holding nothing but a
  run of the opener's character at least as long as the opener, indented by at most 3 spaces
  (more when the opener itself stood indented on its own line, as in a list item: up to its
  indentation + 3), then only spaces or tabs. A run of backticks inside a line of code
  (``# a ``` fence``, ``out = "```"``) is code. Without a closing line the block runs to the
  end of the reply. One tolerance, for JSON fences only: the fence also ends where the JSON
  value ends when the model wrote the closer right after it (``{"a": 1}````).
- ``<think>``, ``<thinking>``, ``<reasoning>`` open an opaque region up to the matching
  closing tag (or the end of the reply): reasoning is text, never executed. A tag written
  inside inline code (preceded by a backtick) is a mention, not a region.
"""

from __future__ import annotations

import re
from typing import Final

from parsing.json.snippets import match_enclosed
from parsing.regions import PENDING, Match, NoMatch, Opaque

JSON_LANGS: Final = frozenset({"json", "jsonc", "json5"})
REASONING_TAGS: Final = ("think", "thinking", "reasoning")

_INFO = re.compile(r"[ \t]*+([A-Za-z0-9_+#.\-]*+)")
_REASONING = re.compile(r"<(think|thinking|reasoning)>")

_CLOSING: dict[tuple[str, int], re.Pattern[str]] = {}


def closing_line(run: str, indent: int = 0) -> re.Pattern[str]:
    """The closing fence line of a fence opened by ``run`` whose own line was indented by
    ``indent`` spaces (0 when the opener followed other text on its line)."""
    key = (run, indent)
    pattern = _CLOSING.get(key)
    if pattern is None:
        char = re.escape(run[0])
        pattern = re.compile(
            rf"^ {{0,{indent + 3}}}+{char}{{{len(run)},}}+[ \t]*+\r?$", re.MULTILINE
        )
        if len(_CLOSING) < 256:
            _CLOSING[key] = pattern
    return pattern


def _opener_indent(text: str, i: int) -> int:
    """Spaces before the opener at ``i`` when only spaces precede it on its line, else 0."""
    line_start = text.rfind("\n", 0, i) + 1
    before = text[line_start:i] if i - line_start <= 64 else "x"
    return len(before) if before.strip(" ") == "" else 0


def match_fence_at(text: str, i: int, run: str, eof: bool) -> Match:
    """The fence whose opening ``run`` (``` or ~~~, maybe longer) starts at ``text[i]``."""
    n = len(text)
    info_at = i + len(run)
    info = _INFO.match(text, info_at)
    assert info is not None
    if not eof and info.end() >= n:
        return PENDING  # the run or the info word may still grow
    lang = info.group(1).lower()
    body = info.end()
    close = run[0] * len(run)
    if lang not in JSON_LANGS and lang != "":
        return Opaque(body, close, fence=True, line=closing_line(close, _opener_indent(text, i)))
    v = body
    while v < n and text[v] in " \t\r\n":
        v += 1
    if lang and not eof and v < n and text[v] in "{[" and text.find(close, body) < 0:
        return PENDING  # (`match_enclosed`'s first answer, before the closing line is built)
    line = closing_line(close, _opener_indent(text, i))
    if v >= n:
        return Opaque(body, close, fence=True, line=line) if eof else PENDING
    if text[v] not in "{[":
        return Opaque(body, close, fence=True, line=line)
    return match_enclosed(
        text, i, body, close, "fenced_json", eof, repair=lang != "", line_close=line,
    )  # fmt: skip


def match_reasoning_at(text: str, i: int) -> Match:
    """A ``<think>``-like block at ``text[i]``: opaque up to its closing tag."""
    m = _REASONING.match(text, i)
    if m is None or (i > 0 and text[i - 1] == "`"):
        return NoMatch()
    return Opaque(m.end(), f"</{m.group(1)}>")
