"""A chunk's file as evidence beside the chunk: small-to-big for BM25 (issue 27, round 7).

BM25 ranks chunks, each judged by its own words. A passage of the file that is about the
question as a whole is likelier the answer than an equal passage of a file that merely
mentions it: so each of BM25's candidates gets ``FILE_WEIGHT`` x the best candidate's score x
its file's BM25 (the file scored as one document: every word's column-weighted frequency
summed over the file's chunks, the file's length against the mean file's) over the best
file's. At 0.08 no corpus of bench/retrieval_quality.py is lower and four are higher (npm's
MRR 0.532 -> 0.557, fastify, pino, click: docs/retrieval.md, round 7); 0.1 lowered the
Node.js API.

Store-independent: each store gives, for the files of its candidates, their length in
words and their words' weighted frequencies (SQLite: from its FTS columns; PostgreSQL: from
its ``chunk_words`` rows), kept in a ``FileCounts`` cache (a file's words are read once, not
at every query: reading them is what costs), the mean file length and the query words'
inverse document frequencies (the chunks', as BM25 itself uses); the arithmetic is here, so
both stores rank alike.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from actions.index.terms import BM25_B, BM25_K1

FILE_WEIGHT = 0.08  # of the best candidate's score, for the best file; 0.06-0.09 measured
FILES_CACHED = 256  # files whose word counts a store keeps (the least recently used go)

Key = TypeVar("Key")
Word = TypeVar("Word", bound=Hashable)


@dataclass(frozen=True)
class FileWords(Generic[Word]):
    """A file's length in words (all its chunks' FTS columns) and its words' column-weighted
    frequencies over its chunks (words as the store keys them: SQLite its words, PostgreSQL
    their numbers)."""

    length: int
    frequencies: Mapping[Word, float]


class FileCounts(Generic[Word]):
    """``FileWords`` by path, the ``FILES_CACHED`` last used; a store drops a file when it
    writes it and all of them when it reads its statistics again. Not thread-safe: the
    stores call it under their lock."""

    def __init__(self) -> None:
        self._files: OrderedDict[str, FileWords[Word]] = OrderedDict()

    def get(
        self, paths: Sequence[str], load: Callable[[list[str]], dict[str, FileWords[Word]]]
    ) -> dict[str, FileWords[Word]]:
        """``paths``' words, ``load`` reading those not cached (a path it does not return
        has no chunks: empty)."""
        missing = [path for path in paths if path not in self._files]
        if missing:
            loaded = load(missing)
            for path in missing:
                self._files[path] = loaded.get(path) or FileWords(0, {})
        found = {}
        for path in paths:
            self._files.move_to_end(path)
            found[path] = self._files[path]
        while len(self._files) > max(FILES_CACHED, len(paths)):
            self._files.popitem(last=False)
        return found

    def drop(self, paths: Sequence[str]) -> None:
        for path in paths:
            self._files.pop(path, None)

    def clear(self) -> None:
        self._files.clear()


def file_scores(
    files: Mapping[str, FileWords[Word]], idf: Mapping[Word, float], average: float
) -> dict[str, float]:
    """Each file's BM25 for the words of ``idf`` (FTS5's arithmetic: k1 1.2, b 0.75),
    ``average`` the mean file length in words."""
    average = max(average, 1.0)
    scores = {}
    for path, found in files.items():
        norm = BM25_K1 * (1 - BM25_B + BM25_B * found.length / average)
        score = 0.0
        for word, weight in idf.items():
            tf = found.frequencies.get(word, 0.0)
            if tf:
                score += weight * tf * (BM25_K1 + 1) / (tf + norm)
        scores[path] = score
    return scores


def with_files(
    ranked: Sequence[tuple[Key, float]], document: Callable[[Key], str], scores: Mapping[str, Any]
) -> list[tuple[Key, float]]:
    """``ranked``'s ``(key, score)`` with each key's file evidence added, best first (ties in
    the given order); unchanged when no file scores."""
    best = max((score for _, score in ranked), default=0.0) or 1.0
    top = max(scores.values(), default=0.0)
    if not top:
        return list(ranked)
    lifted = [
        (key, score + FILE_WEIGHT * best * scores.get(document(key), 0.0) / top)
        for key, score in ranked
    ]
    return sorted(lifted, key=lambda item: -item[1])
