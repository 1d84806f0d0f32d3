"""The words both stores index and search: lower-cased words with a light plural stemmer,
stop words, and how a query's words are ranked (SQLite FTS5 and PostgreSQL rank the same
terms by the same rules, so their BM25 rankings agree).

A word is a run of letters and digits: ``_`` and every other punctuation separate words, so
an identifier is found by its parts whatever the query looks like (``findme_normal_word``,
``zorblax.config.load_settings``, ``src/utils/helpers.py``); a camelCase name stays one word.
The stores index exactly these words (FTS5 through its ``ascii`` tokenizer, which never
splits them again; PostgreSQL under the ``simple`` configuration), so a query word is known
to the index exactly when the index holds it. ``identifiers.identifier_words`` adds each
identifier's other form (``load_settings`` whole, ``parseConfig`` by its parts)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from actions.index.identifiers import identifier_words

FUSION_DEPTH = 50  # how many of each ranking take part in the hybrid fusion (at least k)

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
STOP_WORDS = frozenset(
    _WORD.findall(
        "a an and are as at be been being but by can could do does for from had has have how i"
        " if in into is it its of on or should so such that the their then there these they"
        " this to was were what when where which who why will with would you your"
    )
)

MATCH_BUDGET = 3_000  # chunks a query ranks in full: beyond, its rarest words pick them
CAPPED_ROWS = 1000
EXACT_STATS_BELOW = 1000  # chunks: a smaller index reads word frequencies at every query


def terms(text: str) -> list[str]:
    """Lower-cased words with a light plural stemmer (``indexes`` -> ``index``), the form
    both the FTS columns and the queries use."""
    words = [*_WORD.findall(text.lower()), *identifier_words(text)]
    return [_stem(word) for word in words]


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    if len(word) <= 3 or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    return word[:-1]


def query_terms(query: str) -> list[str]:
    """``query``'s distinct terms, stop words dropped unless nothing else is left."""
    words = list(dict.fromkeys(terms(query)))
    return [word for word in words if word not in STOP_WORDS] or words


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
