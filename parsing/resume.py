"""Work kept across the streaming parser's looks at a pending candidate (SPEC §3 "Streaming").

While a reply streams in, `StreamParser` looks again at the same undecided candidate each
time its text has grown enough. Read from scratch, each look would cost the candidate's whole
length: a long candidate (a file's contents with unescaped quotes, a run of brackets) cost
two to three whole parses in all. The looks share a `Resumes` instead, made active around
each look (`enter`, `leave`); the passes consult it:

- the tolerant parser (`json.tolerant`) suspended where it needed more text (`NeedMore`):
  the next look resumes it there, over the longer text;
- a tolerant reading that returned (complete, or rejected) without needing more text: it
  is final, whatever follows, and is reused as is;
- the string-aware bracket count of a region nested too deep (`json.snippets`).

Sound because every decision these passes take while streaming depends only on the text
already received: a decision that needs a character past the end raises `NeedMore` instead
(the "stream == whole" invariant, checked by the property and fuzz tests). So a suspended
reading, resumed over any extension of its text, reads what a fresh reading of the longer
text reads. The stream drops what it holds whenever it drops released text (indices shift),
and a look at a text that does not extend the last one starts afresh.

Outside a stream (``parse_reply``) no `Resumes` is active and nothing is kept.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Any

_ACTIVE: ContextVar[Resumes | None] = ContextVar("agent_ls_stream_resumes", default=None)

Key = tuple[int, str | None]
"""Where a reading starts, and its region's end marker."""


class Resumes:
    """The suspended and finished readings of one stream's text (indices into that text)."""

    __slots__ = ("_text", "balanced", "finished", "suspended")

    def __init__(self) -> None:
        self._text = ""
        self.suspended: dict[Key, Any] = {}
        """Tolerant parsers (`json.tolerant._Parser`) stopped by `NeedMore`."""
        self.finished: dict[Key, Any] = {}
        """Tolerant readings (`Decoded` / `Rejected`) that did not need more text: final.
        (Typed loosely: the parser imports this module, not the other way round.)"""
        self.balanced: dict[int, tuple[int, int, bool, int]] = {}
        """Bracket counts of too-deep regions: (scanned up to, depth, in a string, skip)."""

    def clear(self) -> None:
        """Forget everything (the stream shifted its text, or the candidate changed)."""
        if not self._text:
            return
        self._text = ""
        self.suspended.clear()
        self.finished.clear()
        self.balanced.clear()

    def begin(self, text: str) -> None:
        """A look at ``text``: what was kept stays valid only if ``text`` extends the text
        of the last look."""
        if self._text and not text.startswith(self._text):
            self.clear()
        self._text = text


def enter(resumes: Resumes, text: str) -> Token[Resumes | None]:
    """Make ``resumes`` the active store for one look at ``text`` (until `leave`)."""
    resumes.begin(text)
    return _ACTIVE.set(resumes)


def leave(token: Token[Resumes | None]) -> None:
    """End the look begun by `enter`."""
    _ACTIVE.reset(token)


def active() -> Resumes | None:
    """The store of the look under way, or None (a whole-reply parse)."""
    return _ACTIVE.get()
