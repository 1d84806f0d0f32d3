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
- the string-aware bracket count of a region nested too deep (`json.regions`).

Sound because every decision these passes take while streaming depends only on the text
already received: a decision that needs a character past the end raises `NeedMore` instead
(the "stream == whole" invariant, checked by the property and fuzz tests). So a suspended
reading, resumed over any extension of its text, reads what a fresh reading of the longer
text reads. The stream drops what it holds whenever it drops released text (indices shift),
and a look at a text that does not extend the last one starts afresh.

Outside a stream (``parse_reply``) no `Resumes` is active and nothing is kept. A stream keeps
a store for long candidates only (bookkeeping per look); the tries of a short one resume
too, from one slot: the last streamed reading that needed more text (`keep_stopped`), taken
by the next try of the same start on a text that extends it (`take_stopped`), also by a
look's store that holds none there (the stream keeps the text a candidate was found in).
Its indices are those of that text: a text that does not extend it, or another start, reads
afresh.
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


_STOPPED: ContextVar[tuple[str, Key, Any] | None] = ContextVar("agent_ls_stopped", default=None)
"""The last reading stopped by `NeedMore` outside a look: (the text it read, its key, the
parser). (A context variable, as `_ACTIVE`: a thread never resumes another's reading.)"""


def keep_stopped(text: str, key: Key, parser: Any) -> None:
    """Keep a streamed tolerant reading that needed more text when no store is active (a
    candidate shorter than the stream's threshold for one, `stream._RESUME_FROM`): one slot,
    the last such reading, replaced by the next."""
    _STOPPED.set((text, key, parser))


def take_stopped(text: str, key: Key) -> Any:
    """The reading kept by `keep_stopped` at ``key`` when ``text`` extends the text it stopped
    in (the next try of the same candidate: its steps so far hold), taken (it resumes once,
    then may be kept again); else None."""
    last = _STOPPED.get()
    if last is None or last[1] != key or not text.startswith(last[0]):
        return None
    _STOPPED.set(None)
    return last[2]
