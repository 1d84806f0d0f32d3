"""json-repair as the last resort, bounded, and the fidelity guard that checks its output.

json-repair 0.64.5 has no timeout and is quadratic on code inside strings (a 68 KB block took
7.9 s), raises RecursionError / ValueError on deep nesting, and can silently shorten strings
(tests/fixtures/corpus/json-repair-regressions). So it only runs:

- on the body of a ```json fence or a <tool_call> tag that our own passes could not decode;
- below `MAX_REPAIR_CHARS` characters and `MAX_REPAIR_BRACKETS` brackets;
- under a work budget (`REPAIR_BUDGET_CALLS`): a profile hook, installed for the call on
  the current thread only, counts json-repair's function calls and aborts it once the
  budget is spent. A count, not a clock: the same body gets the same answer whatever the
  machine's load, so the streamed reply and the whole one (which may repair it at
  different moments) always agree (a 0.2 s clock let a loaded machine cut a repair that an
  idle one finished);
- under one budget per reply (`ReplyRepairs`, `REPLY_BUDGET_CALLS`): the calls of all its
  repairs together, and up to the end of a body only `REPLY_CALLS_PER_CHAR` per character
  of the reply read so far (at least `REPLY_FLOOR_CALLS`), so a short reply spends in
  proportion to its size. A reply of many junk ```json bodies (each ~65 ms of json-repair
  at 15 KB) spends it once; the bodies after that are not repaired and stay text (nothing
  is lost: an undecodable body is opaque text anyway), while a body our own passes decode
  (a valid action after the junk) is read as ever. The budget counts calls, the allowance
  depends only on where the body ends in the reply, and a body already tried is answered
  from its reading (the stream may look at one region twice), so the stream and the whole
  reply spend it alike, on the same bodies in the same order;
- with ``stream_stable=True`` (keeps trailing newlines), every exception it raises contained:
  its own bugs included (0.64 raises ``AssertionError`` on ``{{'`` and similar), a failed
  repair is just no reading.

`lost_characters` is the fidelity guard: it compares the letters and digits of the raw text
(escapes decoded) with those of the decoded value. A result that lost any is ``suspect``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from contextvars import ContextVar, Token
from types import FrameType
from typing import Any, Final

import json_repair

MAX_REPAIR_CHARS: Final = 16_000
MAX_REPAIR_BRACKETS: Final = 400
REPAIR_BUDGET_CALLS: Final = 100_000
"""About 0.2 s here under the hook (json-repair makes 5-10 calls per character: a 16 KB
body of printable text takes ~76,000); the replies of the corpora take at most ~46,000."""
REPLY_BUDGET_CALLS: Final = REPAIR_BUDGET_CALLS
"""All the repairs of one reply together: as much as one repair of the largest body."""
REPLY_FLOOR_CALLS: Final = 33_000
"""What the repairs of a reply may spend up to a body ending anywhere (~22 ms). The repairs
that succeed in bench/parse_ab.py's ~15,500 inputs take at most 28,800 calls (a synthetic
family, ``<tool_call>{`` x120, 1,440 characters); the real replies at most ~700."""
REPLY_CALLS_PER_CHAR: Final = 1
"""Past `REPLY_FLOOR_CALLS`, what they may spend per character up to the body's end: a
reply of junk bodies costs in proportion to its size (~1 call per character: ~65 ms per
100 KB), up to `REPLY_BUDGET_CALLS`."""

_ALNUM = re.compile(r"[^\W_]")
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.S)
_BRACKETS = re.compile(r"[\[{]")


class _OutOfBudget(BaseException):
    """Raised by the profile hook; a BaseException so json-repair's handlers let it pass."""


Reading = tuple[Any, bool] | None
"""json-repair's ``(value, suspect)``, or None (refused, failed, out of budget)."""


class ReplyRepairs:
    """The json-repair budget of one reply (calls spent, the allowance) and the readings of
    the bodies tried (a body tried again is answered from here, at no cost)."""

    __slots__ = ("base", "calls", "readings", "spent")

    def __init__(self, calls: int = REPLY_BUDGET_CALLS) -> None:
        self.calls = calls
        self.spent = 0
        self.base = 0  # the reply's offset of the text being scanned (the stream's window)
        self.readings: dict[str, Reading] = {}

    @property
    def left(self) -> int:
        """Calls left of the whole reply's budget."""
        return self.calls - self.spent

    def left_at(self, end: int) -> int:
        """Calls the repair of a body ending at ``end`` (in the text scanned) may take."""
        allowance = max(REPLY_FLOOR_CALLS, REPLY_CALLS_PER_CHAR * (self.base + end))
        return min(self.calls, allowance) - self.spent


_REPLY: ContextVar[ReplyRepairs | None] = ContextVar("agent_ls_reply_repairs", default=None)


def spend_from(repairs: ReplyRepairs) -> Token[ReplyRepairs | None]:
    """Make ``repairs`` the budget of the `repair_last_resort` calls that follow, until
    `stop_spending` (a pair, not a context manager: the stream does this at every look)."""
    return _REPLY.set(repairs)


def stop_spending(token: Token[ReplyRepairs | None]) -> None:
    _REPLY.reset(token)


def repair_last_resort(
    body: str, budget_calls: int = REPAIR_BUDGET_CALLS, *, end: int = 0
) -> Reading:
    """json-repair's reading of ``body`` as ``(value, suspect)``, or None if refused/failed
    (or the reply's budget, when one is active (`spend_from`), is spent up to ``end``: where
    the body ends in the text scanned).

    Only a non-empty object or array counts as a reading.
    """
    if len(body) > MAX_REPAIR_CHARS or len(_BRACKETS.findall(body)) > MAX_REPAIR_BRACKETS:
        return None
    reply = _REPLY.get()
    if reply is None:
        return _repair(body, budget_calls)[0]
    if body in reply.readings:
        return reply.readings[body]
    left = reply.left_at(end)
    if left <= 0:
        return None
    reading, calls = _repair(body, min(budget_calls, left))
    reply.spent += calls
    reply.readings[body] = reading
    return reading


def _repair(body: str, budget_calls: int) -> tuple[Reading, int]:
    """The reading of ``body`` and the calls it took."""
    counter = [0]
    try:
        value = _bounded(
            lambda: json_repair.loads(body, skip_json_loads=True, stream_stable=True),
            budget_calls,
            counter,
        )
    except (Exception, _OutOfBudget):  # third-party code: any failure of it is "no reading"
        return None, counter[0]
    if not isinstance(value, dict | list) or not value:
        return None, counter[0]
    return (value, lost_characters(body, value)), counter[0]


def _bounded(call: Callable[[], Any], budget_calls: int, counter: list[int]) -> Any:
    """``call()`` aborted after ``budget_calls`` calls; the calls made go to ``counter[0]``.
    (The hook runs at every call and return: a local count, not ``counter[0]``, is ~10%
    less json-repair time under it.)"""
    calls = 0

    def hook(_frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal calls
        if event == "call" or event == "c_call":
            calls += 1
            if calls > budget_calls:
                counter[0] = calls
                raise _OutOfBudget

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        return call()
    finally:
        sys.setprofile(previous)  # (a call the hook counts: it may raise, `counter` is set)
        counter[0] = calls


def _raw_char(match: re.Match[str]) -> str:
    code = match.group(1)
    if len(code) == 5:
        return chr(int(code[1:], 16))
    return " " if code in "bfnrt" else code


def _count(text: str) -> int:
    return len(_ALNUM.findall(text))


def lost_characters(raw: str, value: Any) -> bool:
    """True if ``value`` holds fewer letters/digits than the raw JSON text it came from.

    Keys, strings, numbers and literals are counted on the value side; on the raw side
    escapes are decoded first (``\\n`` is not a letter ``n``).
    """
    raw_count = _count(_ESCAPE.sub(_raw_char, raw))
    total = 0
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
            total += sum(_count(str(key)) for key in item)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            total += _count(item)
        elif item is None or isinstance(item, bool):
            total += 5 if item is False else 4
        else:
            total += _count(repr(item))
    return total < raw_count
