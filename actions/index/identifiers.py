"""Code identifiers as index words: found whole and by their parts.

``terms`` splits text into runs of letters and digits, so ``load_settings`` is indexed as
``load`` and ``settings`` and ``loadSettings`` as ``loadsettings``. ``identifier_words`` adds
the other form of each: the joined whole of a compound (``load_settings`` -> ``loadsettings``,
the same word as ``loadSettings``; ``zorblax.config.load_settings`` -> ``zorblaxconfigloadsettings``
and its tails ``configloadsettings``; ``src/utils/helpers.py`` -> ``srcutilshelperspy``, ...,
``helperspy``) and the parts of a camelCase or PascalCase word (``parseHTTPResponse`` ->
``parse``, ``http``, ``response``). A query is reduced the same way, so ``load_settings``,
``loadSettings`` and ``LoadSettings`` all find the definition by its whole name, which is far
rarer than its parts and so ranks it first.
"""

from __future__ import annotations

import functools
import re

# a compound: words joined by `_`, `.`, `/`, `::` or `->` (no spaces); matched from a word's
# start only (the look-behind), else the engine retries at every letter of every word
_COMPOUND = re.compile(r"(?<![^\W_])[^\W_]+(?:(?:_+|\.|/|::|->)[^\W_]+)+", re.UNICODE)
_RUN = re.compile(r"\S+")
_JOINT = re.compile(r"[A-Z_./:\-]")  # what a run adding words holds (a capital, a joint)
_CAPITALIZED = re.compile(r"(?<![^\W_])[^\W_]*[A-Z][^\W_]*")
_SEGMENT = re.compile(r"\.|/|::|->")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"[a-z0-9][A-Z]|[A-Z][A-Z][a-z]")
_HUMP = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
MAX_SEGMENTS = 8  # the tails of a longer path or dotted name are not indexed whole


def identifier_words(text: str) -> list[str]:
    """The extra lower-case words of ``text``'s identifiers (see the module docstring)."""
    extra: list[str] = []
    for run in _RUN.findall(text):
        extra += run_words(run)
    return extra


def run_words(run: str) -> tuple[str, ...]:
    """The extra words of one run of non-space characters (``identifier_words`` of a text
    is theirs, run after run)."""
    if not _JOINT.search(run):  # no capital, no compound: nothing to add (most runs)
        return ()
    return _run_words(run)


@functools.lru_cache(maxsize=65536)
def _run_words(run: str) -> tuple[str, ...]:
    """The extra words of one run (code repeats them: cached)."""
    extra: list[str] = []
    for match in _COMPOUND.finditer(run):
        segments = _SEGMENT.split(match.group())
        joined = ["".join(_WORD.findall(segment)).lower() for segment in segments]
        if len(segments) > 1:
            tails = range(max(0, len(joined) - MAX_SEGMENTS), len(joined) - 1)
            extra += ["".join(joined[start:]) for start in tails]
        extra += [word for segment, word in zip(segments, joined, strict=True) if "_" in segment]
    if not run.islower():  # else no capital: no hump
        for word in _CAPITALIZED.findall(run):
            extra += _humps(word)
    return tuple(extra)


@functools.lru_cache(maxsize=65536)
def _humps(word: str) -> tuple[str, ...]:
    """The lower-case humps of a camelCase / PascalCase word, none for any other word."""
    if not _CAMEL.search(word):
        return ()
    return tuple(hump.lower() for hump in _HUMP.findall(word))
