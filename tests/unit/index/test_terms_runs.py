"""``terms`` looks a text up run by run (issue 27 item 8: the build's words in C lookups); its
words must be exactly those of the word-by-word rule it replaced, kept here as the reference."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from actions.index.identifiers import MAX_SEGMENTS, _humps
from actions.index.terms import MEMO_RUNS, _stem, terms

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_RUN = re.compile(r"\S+")
_COMPOUND = re.compile(r"(?<![^\W_])[^\W_]+(?:(?:_+|\.|/|::|->)[^\W_]+)+", re.UNICODE)
_CAPITALIZED = re.compile(r"(?<![^\W_])[^\W_]*[A-Z][^\W_]*")
_SEGMENT = re.compile(r"\.|/|::|->")


def reference_terms(text: str) -> list[str]:
    """The rule as written before: every word of the lower-cased text, then the extra words
    of each run that is not a plain lower-case word, each followed by its stem."""
    extra: list[str] = []
    for run in _RUN.findall(text):
        if not (run.isalpha() and run.islower()):
            extra += reference_run_words(run)
    words = [*_WORD.findall(text.lower()), *extra]
    return [term for word in words for term in (word, _stem(word))]


def reference_run_words(run: str) -> list[str]:
    extra: list[str] = []
    for match in _COMPOUND.finditer(run):
        segments = _SEGMENT.split(match.group())
        joined = ["".join(_WORD.findall(segment)).lower() for segment in segments]
        if len(segments) > 1:
            tails = range(max(0, len(joined) - MAX_SEGMENTS), len(joined) - 1)
            extra += ["".join(joined[start:]) for start in tails]
        extra += [word for segment, word in zip(segments, joined, strict=True) if "_" in segment]
    for word in _CAPITALIZED.findall(run):
        extra += _humps(word)
    return extra


# what decides a word or an identifier's parts: cases, `_` and the compound joints, digits,
# letters without case, letters whose lower case is longer (İ) or depends on what follows (Σ),
# marks, and the many kinds of space (a run ends at each)
PIECES = st.sampled_from(
    [
        *("load", "Settings", "HTTP", "parseHTTPResponse", "x2", "42", "v1.2", "_", "__init__"),
        *(".", "/", "::", "->", "-", ":", ",", "(", ")", "'", '"', "`", "#", "*", "|"),
        *("ΣΑΣ", "Σ", "σ", "ὈΔΥΣΣΕΎΣ", "İstanbul", "ǅ", "ß", "ﬁ", "Ⅻ", "²", "٣", "日本語"),
        *("\u00e9t\u00e9", "e\u0301t\u0301", "\u0345"),
        *(" ", "  ", "\n", "\t", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u2028"),
        "\u3000",
    ]
)
TEXTS = st.one_of(st.lists(PIECES, max_size=30).map("".join), st.text(max_size=60))


@settings(max_examples=1000)
@given(TEXTS)
def test_terms_are_the_word_by_word_rules_terms(text: str) -> None:
    assert terms(text) == reference_terms(text)


def test_prose_and_code_give_the_reference_terms() -> None:
    text = (
        "## Configuring `load_settings()`\n\nCall zorblax.config.load_settings(path) or "
        "net::Socket::close; parseHTTPResponse -> Response. ΣΑΣ İstanbul x2 v1.2 __init__\n"
    )
    assert terms(text) == reference_terms(text)
    assert terms("") == []
    assert terms(" \n\t") == []


def test_more_runs_than_are_remembered_give_the_same_terms() -> None:
    """Past ``MEMO_RUNS`` distinct runs the memo starts again; a text is still whole."""
    letters = str.maketrans("0123456789", "abcdefghij")
    text = " ".join(f"w{number}".translate(letters) for number in range(MEMO_RUNS + 100))
    assert terms(f"{text} load_settings") == reference_terms(f"{text} load_settings")
