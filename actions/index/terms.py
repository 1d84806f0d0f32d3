"""The words both stores index and search: lower-cased words with a light plural stemmer,
stop words, and the rules that keep a query to its selective words (SQLite FTS5 and
PostgreSQL rank the same terms, so their BM25 rankings agree).

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

from actions.index.identifiers import identifier_words

FUSION_DEPTH = 50  # how many of each ranking take part in the hybrid fusion (at least k)

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
STOP_WORDS = frozenset(
    _WORD.findall(
        "a an and are as at be by can do does for from how i if in is it its of on or so that"
        " the their then there these this to was what when where which who why will with you your"
    )
)

COMMON_SHARE = 0.01  # a query word in more than 1% of the chunks (and > COMMON_MIN) is noise
COMMON_MIN = 500
MAX_TERMS = 6  # the rarest words of a long query decide its ranking
CAPPED_ROWS = 1000


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
