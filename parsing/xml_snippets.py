"""XML tool-call tags: ``<tool_call>{...}</tool_call>`` as Hermes/Qwen models emit them.

``<tool_use>`` (Claude-style) is accepted as an alias. The body is JSON, read string-aware:
a ``</tool_call>`` inside a JSON string does not end the call. A tag whose body does not
start with ``{`` or ``[`` is a mention in prose (``use the `<tool_call>` tag``) and stays
text; a body that starts like JSON but cannot be decoded (even by json-repair) makes the
whole tag region opaque text: it is never executed, and its inner JSON is never picked up
as a bare snippet.
"""

from __future__ import annotations

import re
from typing import Final

from parsing.json.scan import NeedMore, Source
from parsing.json.snippets import match_enclosed
from parsing.regions import PENDING, Match, NoMatch

TOOL_TAGS: Final = ("tool_call", "tool_use")
_OPEN = re.compile(r"<(tool_call|tool_use)>")


def match_tool_tag_at(text: str, i: int, eof: bool) -> Match:
    """The tool-call tag opening at ``text[i]``."""
    m = _OPEN.match(text, i)
    if m is None:
        return NoMatch()
    src = Source(text, eof)
    try:
        v = src.skip_ws(m.end())
        if src.at_end(v) or text[v] not in "{[":
            return NoMatch()
    except NeedMore:
        return PENDING
    close = f"</{m.group(1)}>"
    return match_enclosed(text, i, m.end(), close, "tool_call", eof, repair=True)
