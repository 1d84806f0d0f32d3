"""Stop words at a small weight: a re-rank of BM25's candidates (issue 27, round 5).

A query's stop words (``terms.STOP_WORDS``: ``on``, ``its``, ``when``...) do not choose the
chunks ranked (``terms.query_terms`` leaves them out), but among the chunks the content words
found they add ``STOP_WEIGHT`` times the BM25 score FTS5 would give them: "where does npm
keep its cache on Linux and on Windows" is answered by the passage saying "on Posix, or ...
on Windows", which plain BM25 finds by those very words. At full weight they lowered the
Node.js docs (docs/retrieval.md, round 3); at 0.2 no corpus of bench/retrieval_quality.py is
lower and five are higher (round 5).

Store-independent: both stores give their first candidates' words (SQLite: its FTS columns;
PostgreSQL: derived from the stored text as its postings are, ``pg_postings.columns_of``: the
same words) and their corpus statistics (chunk count, mean length, each stop word's chunk
frequency); the frequencies and lengths are counted and scored here with FTS5's ``bm25()``
arithmetic (fts5_aux.c), so SQLite and PostgreSQL rank alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from actions.index.terms import (
    BM25_B,
    BM25_K1,
    COLUMN_WEIGHTS,
    STOP_WORDS,
    bm25_idf,
    query_terms,
    terms,
)

STOP_WEIGHT = 0.2  # of a stop word's BM25 score; 0.1-0.3 measured, 0.2 the best (round 5)
STOP_DEPTH = 20  # BM25's first candidates re-ranked: 20 and all 50 rank the same (round 5)


@dataclass(frozen=True)
class Corpus:
    """What BM25 needs of the whole index: chunks, their mean length in words, and the chunk
    frequency of each word asked for."""

    total: int
    average: float
    frequencies: Mapping[str, int]


@dataclass(frozen=True)
class Candidate:
    """One of BM25's candidates: its key, its BM25 score (higher better) and its head, small
    and body columns as the store indexes them: ``terms``' words, each followed by a space
    but the last (empty for a candidate past ``STOP_DEPTH``)."""

    key: Any
    score: float
    columns: tuple[str, ...]


def stop_terms(query: str) -> list[str]:
    """``query``'s stop words and their stems, none when it has nothing else (then
    ``query_terms`` scores them at full weight)."""
    stops = [word for word in dict.fromkeys(terms(query)) if word in STOP_WORDS]
    found = list(dict.fromkeys(term for word in stops for term in terms(word)))
    return [] if set(query_terms(query)) <= set(found) else found


def rescored(
    candidates: Sequence[Candidate], stops: Sequence[str], corpus: Corpus
) -> list[tuple[Any, float]]:
    """``(key, score)`` of each candidate, the first ``STOP_DEPTH`` with ``STOP_WEIGHT`` x
    their BM25 score for ``stops`` added, best first (ties in the given order). A stop word
    in no chunk, or in half the chunks or more, is skipped: FTS5 floors its idf at 1e-6 (it
    weighs nothing)."""
    half = corpus.total / 2
    idf = {
        term: bm25_idf(corpus.total, corpus.frequencies.get(term, 0))
        for term in stops
        if 0 < corpus.frequencies.get(term, 0) < half
    }
    found = [(candidate.key, candidate.score) for candidate in candidates]
    if not idf:
        return found
    average = max(corpus.average, 1.0)
    for number, candidate in enumerate(candidates[:STOP_DEPTH]):
        length, counts = 0, dict.fromkeys(idf, 0.0)
        for weight, column in zip(COLUMN_WEIGHTS, candidate.columns, strict=False):
            length += column.count(" ") + 1 if column else 0
            for term, count in _occurrences(column, idf).items():
                counts[term] += weight * count
        bonus, norm = 0.0, BM25_K1 * (1 - BM25_B + BM25_B * length / average)
        for term, tf in counts.items():
            if tf:
                bonus += idf[term] * tf * (BM25_K1 + 1) / (tf + norm)
        found[number] = (candidate.key, candidate.score + STOP_WEIGHT * bonus)
    return sorted(found, key=lambda item: -item[1])


def _occurrences(column: str, terms: Mapping[str, float]) -> dict[str, int]:
    """How often each of ``terms`` is a word of ``column`` (words each followed by one space
    but the last). Counted in C by ``str.count`` over the column with every space doubled,
    so that each word has spaces of its own on both sides (``rescored`` in 10-30% less
    time than with the column split into words and counted, docs/retrieval.md round 6)."""
    found: dict[str, int] = {}
    spaced = ""
    for term in terms:
        if term in column:
            spaced = spaced or f" {column.replace(' ', '  ')} "
            found[term] = spaced.count(f" {term} ")
    return found
