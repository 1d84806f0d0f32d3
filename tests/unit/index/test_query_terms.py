"""How a query becomes the words both stores rank by (issue #27): stop words out, every content
word kept (the commonest too: they are scored), each word with its English stem as the index
holds them, and the chunks ranked picked by the rarest words only past a budget."""

from __future__ import annotations

from actions.index.terms import MATCH_BUDGET, plan_query, query_terms, terms


def test_stop_words_out_every_content_word_kept() -> None:
    assert query_terms("convert a file: URL into a filesystem path")[::2] == [
        "convert",
        "file",
        "url",
        "filesystem",
        "path",
    ]
    assert query_terms("What is the default value of the cache setting, and why?")[::2] == [
        "default",
        "value",
        "cache",
        "setting",
    ]


def test_a_query_of_stop_words_only_keeps_them() -> None:
    assert query_terms("what is it") == ["what", "what0", "is", "is0", "it", "it0"]


def test_each_word_and_its_english_stem_like_the_index() -> None:
    assert query_terms("indexes queries classes status configured") == [
        *("indexes", "index0", "queries", "queri0", "classes", "class0"),
        *("status", "status0", "configured", "configur0"),
    ]
    assert terms("The indexes of queries") == [
        *("the", "the0", "indexes", "index0", "of", "of0", "queries", "queri0"),
    ]
    assert query_terms("caches") == terms("caches")


def test_one_family_one_stem_term() -> None:
    """``dependencies`` and ``dependency`` share the stem term: a query naming both scores
    the family once, each exact word once."""
    assert query_terms("dependencies of a dependency") == [
        *("dependencies", "depend0", "dependency"),
    ]
    assert {terms(word)[1] for word in ("depends", "depending", "dependent")} == {"depend0"}


def test_every_known_word_scored_rarest_first() -> None:
    plan = plan_query(
        ["file", "url", "path", "convert", "nowhere"],
        {"file": 900, "url": 700, "path": 800, "convert": 6},
    )
    assert plan.scored == ("convert", "url", "path", "file")
    assert plan.matched == plan.scored
    assert not plan.capped


def test_past_the_budget_the_rarest_words_pick_the_chunks_all_still_scored() -> None:
    common = MATCH_BUDGET // 2 + 1
    plan = plan_query(["the", "convert", "path"], {"the": common, "path": common, "convert": 6})
    assert plan.scored == ("convert", "the", "path")
    assert plan.matched == ("convert", "the")
    assert plan.others == ("path",)
    assert not plan.capped


def test_only_very_common_words_are_capped() -> None:
    plan = plan_query(["file", "path"], {"file": MATCH_BUDGET + 1, "path": MATCH_BUDGET + 2})
    assert plan.scored == ("file", "path")
    assert plan.matched == ("file",)
    assert plan.capped
    assert plan_query(["nowhere"], {}).scored == ()
