"""json-repair as the last resort, bounded, and the fidelity guard that checks its output.

json-repair 0.64.5 has no timeout and is quadratic on code inside strings (a 68 KB block took
7.9 s), raises RecursionError / ValueError on deep nesting, and can silently shorten strings
(FACTS.md; shared/corpus/json-repair-regressions). So it only runs:

- on the body of a ```json fence or a <tool_call> tag that our own passes could not decode;
- below `MAX_REPAIR_CHARS` characters and `MAX_REPAIR_BRACKETS` brackets;
- under a work budget (`REPAIR_BUDGET_CALLS`): a profile hook, installed for the call on
  the current thread only, counts json-repair's function calls and aborts it once the
  budget is spent. A count, not a clock: the same body gets the same answer whatever the
  machine's load, so the streamed reply and the whole one (which may repair it at
  different moments) always agree (a 0.2 s clock let a loaded machine cut a repair that an
  idle one finished);
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
from types import FrameType
from typing import Any, Final

import json_repair

MAX_REPAIR_CHARS: Final = 16_000
MAX_REPAIR_BRACKETS: Final = 400
REPAIR_BUDGET_CALLS: Final = 100_000
"""About 0.2 s here under the hook (json-repair makes 5-10 calls per character: a 16 KB
body of printable text takes ~76,000); the replies of the corpora take at most ~46,000."""

_ALNUM = re.compile(r"[^\W_]")
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.S)
_BRACKETS = re.compile(r"[\[{]")


class _OutOfBudget(BaseException):
    """Raised by the profile hook; a BaseException so json-repair's handlers let it pass."""


def repair_last_resort(
    body: str, budget_calls: int = REPAIR_BUDGET_CALLS
) -> tuple[Any, bool] | None:
    """json-repair's reading of ``body`` as ``(value, suspect)``, or None if refused/failed.

    Only a non-empty object or array counts as a reading.
    """
    if len(body) > MAX_REPAIR_CHARS or len(_BRACKETS.findall(body)) > MAX_REPAIR_BRACKETS:
        return None
    try:
        value = _bounded(
            lambda: json_repair.loads(body, skip_json_loads=True, stream_stable=True),
            budget_calls,
        )
    except (Exception, _OutOfBudget):  # third-party code: any failure of it is "no reading"
        return None
    if not isinstance(value, dict | list) or not value:
        return None
    return value, lost_characters(body, value)


def _bounded(call: Callable[[], Any], budget_calls: int) -> Any:
    calls = 0

    def hook(_frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1
            if calls > budget_calls:
                raise _OutOfBudget

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        return call()
    finally:
        sys.setprofile(previous)


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
