"""Action documents that failed to decode: found in what the parser left as text.

The splitter turns every decodable document into a block; a document it could not decode
(a missing comma that repair cannot place, a stray quote…) stays text, and the turn would end
as if the model had answered. `malformed_documents` finds such leftovers so the model hears
precisely what is wrong: an object whose first key is ``action`` with one of the four kinds,
or a ``<tool_call>`` tag, in prose or in a JSON / untagged fence — never inside code fences
of other languages or reasoning blocks (examples there are never executed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from parsing.blocks import ACTION_KINDS, Block, TextBlock
from parsing.code_fences import code_fences

_KINDS = "|".join(sorted(ACTION_KINDS))
_CANDIDATE = re.compile(
    r"\{\s*[\"']?action[\"']?\s*:\s*[\"']?(" + _KINDS + r")\b|<tool_call>|<tool_use>"
)
_JSON_LANGS = frozenset({"", "json", "jsonc", "json5"})
_REASONING = re.compile(r"<(think|thinking|reasoning)>.*?(?:</\1>|\Z)", re.S)


@dataclass(frozen=True, slots=True)
class MalformedDocument:
    """A document left as text: where it starts, what it seems to be, why it failed."""

    start: int
    line: int
    kind: str
    excerpt: str
    problem: str


def malformed_documents(reply: str, blocks: Sequence[Block]) -> list[MalformedDocument]:
    """Documents in the text blocks of ``reply`` that could not be decoded."""
    texts = [b for b in blocks if isinstance(b, TextBlock)]
    if not any(_CANDIDATE.search(b.text) for b in texts):
        return []
    documents = [(b.start, b.end) for b in blocks if not isinstance(b, TextBlock)]
    hidden = [
        (f.start, f.end)
        for f in code_fences(reply, documents)
        if f.language.lower() not in _JSON_LANGS
    ]
    hidden += [(m.start(), m.end()) for m in _REASONING.finditer(reply)]
    found: list[MalformedDocument] = []
    for block in texts:
        for match in _CANDIDATE.finditer(block.text):
            at = block.start + match.start()
            if any(start <= at < end for start, end in hidden):
                continue
            kind = match.group(1) or match.group(0)
            found.append(_describe(reply, at, kind))
    return found


def _describe(reply: str, at: int, kind: str) -> MalformedDocument:
    line = reply.count("\n", 0, at) + 1
    excerpt = reply[at : at + 60].split("\n", 1)[0]
    if kind.startswith("<"):
        return MalformedDocument(at, line, "tool_call", excerpt, "its body is not a JSON object")
    try:
        json.JSONDecoder().raw_decode(reply[at:])
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno} of the document"
        return MalformedDocument(at, line, kind, excerpt, f"{error.msg} at {where}")
    return MalformedDocument(at, line, kind, excerpt, "it could not be decoded as one JSON object")
