"""The nearest lines of a text to a search that was not found (for the model to copy from).

Each line of the search votes for the window of the text where an identical (stripped) line
sits; when no line is identical (typos everywhere), the words the search shares with the
text's lines vote, rare words weighing more. difflib's ratio scores the chosen window only:
comparing every search line with every line of the text took seconds on a 10k-line file.
"""

from __future__ import annotations

import difflib
from collections import defaultdict

from actions.text_lines import WORD, TextLines

NEAREST_CONTEXT = 2
"""Lines shown before and after the nearest window."""


def nearest_lines(lines: TextLines, wanted: list[str], first: int) -> tuple[tuple[int, str], ...]:
    """The numbered lines of the window at ``first`` (with a little context)."""
    low = max(0, first - NEAREST_CONTEXT)
    high = min(len(lines.lines), first + len(wanted) + NEAREST_CONTEXT)
    return tuple((n + 1, lines.lines[n].rstrip("\r\n")) for n in range(low, high))


def best_window(lines: TextLines, wanted: list[str]) -> int:
    """0-based first line of the window that most lines of ``wanted`` vote for."""
    index = lines.index()
    votes: defaultdict[int, float] = defaultdict(float)
    for offset, row in enumerate(wanted):
        key = row.strip()
        if key:
            for number in index.get(key, ())[:50]:
                votes[number - offset] += 1
    if not votes:
        votes = _fuzzy_votes(lines, wanted)
    if not votes:
        return 0
    top = max(votes.values())
    best = min(start for start, count in votes.items() if count == top)
    return max(0, min(best, len(lines.lines) - 1))


def _fuzzy_votes(lines: TextLines, wanted: list[str]) -> defaultdict[int, float]:
    """Votes from the words the search shares with the text's lines (typos leave the other
    words voting); a word found on many lines weighs little. difflib would compare each
    search line with every line of the text: seconds on a 10k-line file."""
    index = lines.words()
    votes: defaultdict[int, float] = defaultdict(float)
    for offset, row in enumerate(wanted):
        for word in set(WORD.findall(row)):
            hits = index.get(word, ())
            if 0 < len(hits) <= 200:
                for number in hits:
                    votes[number - offset] += 1 / len(hits)
    return votes


def similarity(lines: TextLines, first: int, wanted: list[str]) -> float:
    """difflib's ratio between the search and the window of the text at ``first``."""
    window = lines.lines[first : first + len(wanted)]
    have = "\n".join(row.strip() for row in window)
    return difflib.SequenceMatcher(None, have, "\n".join(row.strip() for row in wanted)).ratio()
