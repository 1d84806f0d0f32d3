"""Stop words at a small weight: a re-rank of BM25's candidates (issue 27, round 5).

A query's stop words (``terms.STOP_WORDS``: ``on``, ``its``, ``when``...) do not choose the
chunks ranked (``terms.query_terms`` leaves them out), but among the chunks the content words
found they add ``STOP_WEIGHT`` times the BM25 score FTS5 would give them: "where does npm
keep its cache on Linux and on Windows" is answered by the passage saying "on Posix, or ...
on Windows", which plain BM25 finds by those very words. At full weight they lowered the
Node.js docs (docs/retrieval.md, round 3); at 0.2 no corpus of bench/retrieval_quality.py is
lower and five are higher (round 5).

Store-independent: both stores give their first candidates' stop-word frequencies and
lengths (SQLite: its FTS columns, counted here by ``rescored``; PostgreSQL: read from its rows
of word numbers and column-weighted frequencies, ``pg_postings``: the same words, weighted
alike) and their corpus statistics (chunk count, mean length, each stop word's chunk
frequency); they are scored here with FTS5's ``bm25()`` arithmetic (fts5_aux.c,
``reranked``), so SQLite and PostgreSQL rank alike.
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
    idf = weighing(stops, corpus)
    found = [(candidate.key, candidate.score) for candidate in candidates]
    if not idf:
        return found
    counted = []
    for candidate in candidates[:STOP_DEPTH]:
        length, counts = 0, dict.fromkeys(idf, 0.0)
        for weight, column in zip(COLUMN_WEIGHTS, candidate.columns, strict=False):
            length += column.count(" ") + 1 if column else 0
            for term, count in _occurrences(column, idf).items():
                counts[term] += weight * count
        counted.append((length, counts))
    return reranked(found, counted, idf, corpus.average)


def weighing(stops: Sequence[str], corpus: Corpus) -> dict[str, float]:
    """The idf of each of ``stops`` that weighs something: in a chunk, in fewer than half."""
    half = corpus.total / 2
    return {
        term: bm25_idf(corpus.total, corpus.frequencies.get(term, 0))
        for term in stops
        if 0 < corpus.frequencies.get(term, 0) < half
    }


def reranked(
    found: Sequence[tuple[Any, float]],
    counted: Sequence[tuple[int, Mapping[str, float]]],
    idf: Mapping[str, float],
    average: float,
) -> list[tuple[Any, float]]:
    """``found`` (``(key, BM25 score)``, best first) with ``STOP_WEIGHT`` x the BM25 score
    of the stop words of ``idf`` added to the first ``len(counted)`` (each one's length in
    words and column-weighted frequency of each stop word: ``COLUMN_WEIGHTS``), best first
    (ties in the given order). The PostgreSQL store reads the frequencies from its chunks'
    rows of words, the SQLite store counts them in its FTS columns (``rescored``)."""
    ranked = list(found)
    average = max(average, 1.0)
    for number, (length, counts) in enumerate(counted):
        bonus, norm = 0.0, BM25_K1 * (1 - BM25_B + BM25_B * length / average)
        for term in idf:
            tf = counts.get(term, 0.0)
            if tf:
                bonus += idf[term] * tf * (BM25_K1 + 1) / (tf + norm)
        ranked[number] = (ranked[number][0], ranked[number][1] + STOP_WEIGHT * bonus)
    return sorted(ranked, key=lambda item: -item[1])


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
