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

import re

# a compound: words joined by `_`, `.`, `/`, `::` or `->` (no spaces)
_COMPOUND = re.compile(r"[^\W_]+(?:(?:_+|\.|/|::|->)[^\W_]+)+", re.UNICODE)
_SEGMENT = re.compile(r"\.|/|::|->")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"[a-z0-9][A-Z]|[A-Z][A-Z][a-z]")
_HUMP = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
MAX_SEGMENTS = 8  # the tails of a longer path or dotted name are not indexed whole


def identifier_words(text: str) -> list[str]:
    """The extra lower-case words of ``text``'s identifiers (see the module docstring)."""
    extra: list[str] = []
    for match in _COMPOUND.finditer(text):
        segments = _SEGMENT.split(match.group())
        joined = ["".join(_WORD.findall(segment)).lower() for segment in segments]
        if len(segments) > 1:
            tails = range(max(0, len(joined) - MAX_SEGMENTS), len(joined) - 1)
            extra += ["".join(joined[start:]) for start in tails]
        extra += [word for segment, word in zip(segments, joined, strict=True) if "_" in segment]
    for word in _WORD.findall(text):
        if _CAMEL.search(word):
            extra += [hump.lower() for hump in _HUMP.findall(word)]
    return extra
