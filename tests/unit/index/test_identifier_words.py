"""Identifiers indexed whole and by their parts (issue 27 item 4): the words ``terms`` gives."""

from __future__ import annotations

import pytest

from actions.index.terms import _stem, terms

CASES = [
    ("load_settings", {"load", "settings", "loadsettings"}),
    ("loadSettings", {"load", "settings", "loadsettings"}),
    ("LoadSettings", {"load", "settings", "loadsettings"}),
    ("parseHTTPResponse", {"parse", "http", "response", "parsehttpresponse"}),
    ("zorblax.config.load_settings", {"zorblaxconfigloadsettings", "configloadsettings"}),
    ("src/utils/helpers.py", {"src", "utils", "helpers", "py", "srcutilshelperspy", "helperspy"}),
    ("net::Socket::close", {"netsocketclose", "socketclose", "close"}),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_an_identifier_is_indexed_whole_and_by_its_parts(text: str, expected: set[str]) -> None:
    found = terms(text)
    assert expected <= set(found)
    assert {found[found.index(word) + 1] for word in expected} <= {_stem(w) for w in expected}


def test_the_spellings_of_one_name_share_its_whole_word() -> None:
    spellings = ["load_settings", "loadSettings", "LoadSettings", "LOAD_SETTINGS"]
    assert all("loadsettings" in terms(spelling) for spelling in spellings)


def test_prose_gains_no_joined_words() -> None:
    assert terms("Load the settings, then parse it.") == [
        *("load", "load0", "the", "the0", "settings", "set0"),
        *("then", "then0", "parse", "pars0", "it", "it0"),
    ]
