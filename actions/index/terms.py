"""The words both stores index and search: each word as written and its English stem,
stop words, and how a query's words are ranked (SQLite FTS5 and PostgreSQL rank the same
terms by the same rules, so their BM25 rankings agree).

A word is a run of letters and digits: ``_`` and every other punctuation separate words, so
an identifier is found by its parts whatever the query looks like (``findme_normal_word``,
``zorblax.config.load_settings``, ``src/utils/helpers.py``); a camelCase name stays one word.
The stores index exactly these words (FTS5 through its ``ascii`` tokenizer, which never
splits them again; PostgreSQL under the ``simple`` configuration), so a query word is known
to the index exactly when the index holds it. ``identifiers.identifier_words`` adds each
identifier's other form (``load_settings`` whole, ``parseConfig`` by its parts).

Stemming (issue 27): every word is indexed twice, as written (``dependencies``) and as its
Snowball English stem marked with ``STEM_MARK`` (``depend0``), and a query is reduced the
same way, so BM25 sums two kinds of evidence: the exact word (its own, rarer document
frequency) and the word's family (``dependency``, ``depends``...). Either alone lost a corpus
of bench/retrieval_quality.py: the stem alone (FTS5's ``porter``, Snowball) ranked npm's docs
far below plain BM25 (``ci``, ``config``, ``install`` families joining words the questions
keep apart), the exact word alone (or the former light plural stemmer) the Node.js, Node.js
API and undici docs. Changing the words changes the index: both stores re-derive their word
columns from the stored chunks when the words change (SQLite: its schema version, 6 for
these words; PostgreSQL: ``TERMS_VERSION`` in its ``meta`` table).
"""

from __future__ import annotations

import functools
import math
import operator
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain

import Stemmer

from actions.index.identifiers import identifier_words, run_words

FUSION_DEPTH = 50  # how many of each ranking take part in the hybrid fusion (at least k)

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
STOP_WORDS = frozenset(
    _WORD.findall(
        "a an and are as at be been being but by can could do does for from had has have how i"
        " if in into is it its of on or should so such that the their then there these they"
        " this to was were what when where which who why will with would you your"
    )
)

TERMS_VERSION = 2  # 2: each word and its Snowball stem; 1: a light plural stemmer
STEM_MARK = "0"  # a stem's suffix: ``depend0`` is never the word ``depend`` (kept by both
# tokenizers: FTS5's ``ascii`` and PostgreSQL's parser keep letters and digits in one word)
_STEMMER = Stemmer.Stemmer("english")  # the Snowball English stemmer, in C (PyStemmer)
_STEMMER_LOCK = threading.Lock()  # a PyStemmer stemmer is not thread-safe

COLUMN_WEIGHTS = (1.0, 1.0, 0.5)  # head, small, body: FTS5's bm25() weights, both stores
BM25_K1, BM25_B = 1.2, 0.75  # FTS5's bm25() constants


def bm25_idf(total: int, frequency: int) -> float:
    """FTS5's inverse document frequency (fts5_aux.c), floored at 1e-6 as FTS5 floors it: a
    word in half the chunks or more weighs (almost) nothing, on both stores alike."""
    if total <= 0:
        return 1e-6
    return max(math.log((total - frequency + 0.5) / (frequency + 0.5)), 1e-6)


MATCH_BUDGET = 3_000  # chunks a query ranks in full: beyond, its rarest words pick them
CAPPED_ROWS = 1000
EXACT_STATS_BELOW = 1000  # chunks: a smaller index reads word frequencies at every query


MEMO_RUNS = 65_536  # runs of non-space characters whose terms are remembered


@functools.lru_cache(maxsize=MEMO_RUNS)
def _run_terms(run: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(terms of its words, terms of its identifiers' extra words)`` of a run of non-space
    characters. Text repeats its runs (prose its words, code its names), so ``terms`` finds
    most in this cache (in C: no Python frame per run)."""
    return _stemmed(_WORD.findall(run.lower())), _stemmed(run_words(run))


_WORD_TERMS = operator.itemgetter(0)
_EXTRA_TERMS = operator.itemgetter(1)


def terms(text: str) -> list[str]:
    """Each lower-cased word of ``text`` (and of its identifiers) followed by its stem, the
    form both the FTS columns and the queries use.

    The words of a text are those of its runs of non-space characters, in order (a word
    never spans a space, and lower-casing a run is lower-casing it in its text: even the
    final sigma's context ends at a space); then the extra words of its identifiers, run
    after run."""
    found = list(map(_run_terms, text.split()))
    return [
        *chain.from_iterable(map(_WORD_TERMS, found)),
        *chain.from_iterable(map(_EXTRA_TERMS, found)),
    ]


def _stemmed(words: Iterable[str]) -> tuple[str, ...]:
    return tuple(chain.from_iterable(map(_pair, words)))


@functools.lru_cache(maxsize=65536)
def _pair(word: str) -> tuple[str, str]:
    with _STEMMER_LOCK:
        stem: str = _STEMMER.stemWord(word)
    return word, stem + STEM_MARK


def _words(text: str) -> list[str]:
    return [*_WORD.findall(text.lower()), *identifier_words(text)]


def _stem(word: str) -> str:
    return _pair(word)[1]


def query_terms(query: str) -> list[str]:
    """``query``'s distinct terms (each word and its stem), stop words dropped unless
    nothing else is left."""
    words = list(dict.fromkeys(_words(query)))
    kept = [word for word in words if word not in STOP_WORDS] or words
    return list(dict.fromkeys(term for word in kept for term in (word, _stem(word))))


@dataclass(frozen=True)
class QueryPlan:
    """How a query is ranked: every known word in ``scored`` (BM25 over all of them, as
    plain BM25 would), but only the chunks holding one of ``matched`` are ranked.

    ``matched`` is every word unless together they are in more than ``MATCH_BUDGET``
    chunks; then it is the rarest words within the budget (at least one). A chunk holding
    none of them holds only the commonest words of the query, each worth little (BM25's
    inverse document frequency), so the first ranks are those of plain BM25 nearly always —
    at a bounded cost. ``capped``: even the rarest word is in more than ``MATCH_BUDGET``
    chunks (a query of only very common words): only the first ``CAPPED_ROWS`` chunks
    matching it are ranked."""

    scored: tuple[str, ...]
    matched: tuple[str, ...]
    capped: bool

    @property
    def others(self) -> tuple[str, ...]:
        """The scored words that do not pick chunks (the commonest)."""
        return self.scored[len(self.matched) :]


def plan_query(words: list[str], frequencies: dict[str, int]) -> QueryPlan:
    """``words`` (from ``query_terms``) ranked by their chunk frequencies: unknown words
    (in no chunk) dropped, the rest rarest first."""
    known = sorted(
        (word for word in words if frequencies.get(word, 0) > 0), key=lambda word: frequencies[word]
    )
    matched: list[str] = []
    total = 0
    for word in known:
        if matched and total + frequencies[word] > MATCH_BUDGET:
            break
        matched.append(word)
        total += frequencies[word]
    capped = bool(known) and frequencies[known[0]] > MATCH_BUDGET
    return QueryPlan(tuple(known), tuple(matched), capped)
