"""Identifiers indexed whole and by their parts (issue 27 item 4): the words ``terms`` gives."""

from __future__ import annotations

import pytest

from actions.index.terms import terms

CASES = [
    ("load_settings", {"load", "setting", "loadsetting"}),
    ("loadSettings", {"load", "setting", "loadsetting"}),
    ("LoadSettings", {"load", "setting", "loadsetting"}),
    ("parseHTTPResponse", {"parse", "http", "response", "parsehttpresponse"}),
    ("zorblax.config.load_settings", {"zorblaxconfigloadsetting", "configloadsetting"}),
    ("src/utils/helpers.py", {"src", "util", "helper", "py", "srcutilshelperspy", "helperspy"}),
    ("net::Socket::close", {"netsocketclose", "socketclose", "close"}),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_an_identifier_is_indexed_whole_and_by_its_parts(text: str, expected: set[str]) -> None:
    assert expected <= set(terms(text))


def test_the_spellings_of_one_name_share_its_whole_word() -> None:
    spellings = ["load_settings", "loadSettings", "LoadSettings", "LOAD_SETTINGS"]
    assert all("loadsetting" in terms(spelling) for spelling in spellings)


def test_prose_gains_no_joined_words() -> None:
    assert terms("Load the settings, then parse it.") == [
        "load",
        "the",
        "setting",
        "then",
        "parse",
        "it",
    ]
