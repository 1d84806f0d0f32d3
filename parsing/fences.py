"""Code fences and reasoning blocks: the JSON fence parser and the opaque regions.

- A fence is a run of at least three backticks or tildes, anywhere on a line (models write
  ``Here it is: ```json``), then an optional info word. ``json`` / ``jsonc`` / ``json5``
  (any case) open a JSON fence; an untagged fence is JSON when its body starts with ``{`` or
  ``[`` and decodes; any other language (```python) is an opaque code block: text, never
  searched. A fence closes at the next run of the same character at least as long.
- ``<think>``, ``<thinking>``, ``<reasoning>`` open an opaque region up to the matching
  closing tag (or the end of the reply): reasoning is text, never executed. A tag written
  inside inline code (preceded by a backtick) is a mention, not a region.
"""

from __future__ import annotations

import re
from typing import Final

from parsing.json_snippets import match_enclosed
from parsing.regions import PENDING, Match, NoMatch, Opaque

JSON_LANGS: Final = frozenset({"json", "jsonc", "json5"})
REASONING_TAGS: Final = ("think", "thinking", "reasoning")

_INFO = re.compile(r"[ \t]*([A-Za-z0-9_+#.\-]*)")
_REASONING = re.compile(r"<(think|thinking|reasoning)>")


_LINE_CLOSE: dict[str, re.Pattern[str]] = {}


def _line_close(run: str) -> re.Pattern[str]:
    pattern = _LINE_CLOSE.get(run)
    if pattern is None:
        pattern = re.compile(r"^[ \t]*" + re.escape(run) + "+" + r"[ \t]*$", re.M)
        if len(_LINE_CLOSE) < 64:
            _LINE_CLOSE[run] = pattern
    return pattern


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
        return Opaque(body, close, fence=True)
    v = body
    while v < n and text[v] in " \t\r\n":
        v += 1
    if v >= n:
        return Opaque(body, close, fence=True) if eof else PENDING
    if text[v] not in "{[":
        return Opaque(body, close, fence=True)
    return match_enclosed(
        text, i, body, close, "fenced_json", eof,
        repair=lang != "", line_close=_line_close(close),
    )  # fmt: skip


def match_reasoning_at(text: str, i: int) -> Match:
    """A ``<think>``-like block at ``text[i]``: opaque up to its closing tag."""
    m = _REASONING.match(text, i)
    if m is None or (i > 0 and text[i - 1] == "`"):
        return NoMatch()
    return Opaque(m.end(), f"</{m.group(1)}>")
