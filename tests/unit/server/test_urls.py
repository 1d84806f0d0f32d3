"""URL settings are checked when loaded: a malformed one is a problem naming the key, in
words that never repeat the URL, and it is not used (no other value stands in for it)."""

from __future__ import annotations

import pytest

from server.config import Config, blocking_problem, merge
from server.urls import base_url_problem, index_url_problem


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://127.0.0.1:8080/v1", None),
        ("https://u:p@api.example/v1", None),
        ("http://[::1]:8080/v1", None),
        ("http://127.0.0.1:99999/v1", "its port 99999 is out of range (0-65535)"),
        ("http://h:65536", "its port 65536 is out of range (0-65535)"),
        ("ftp://h/v1", "the scheme is 'ftp'"),
        ("127.0.0.1:8080", "it is not a URL"),
        ("http:///v1", "it has no host"),
        ("http://127.0.0.1:/v1", "its port is empty"),
        ("http://u:p@[::1]:/v1", "its port is empty"),
    ],
)
def test_base_urls(url: str, problem: str | None) -> None:
    assert base_url_problem(url) == problem


def test_a_broken_ipv6_host_is_named() -> None:
    assert base_url_problem("http://[::1/v1") == "its IPv6 host has no closing ']'"
    assert base_url_problem("http://u:p@[::1:8080/v1") == "its IPv6 host has no closing ']'"


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("postgresql://u:p@db:5432/x", None),
        ("postgres://db/x?sslmode=require", None),
        ("postgresql://h1:5432,h2:5433/x", None),  # several hosts: libpq's own form
        ("postgresql:///x?host=/var/run/postgresql", None),  # a socket
        ("postgresql://u:p@db:99999/x", "its port 99999 is out of range (0-65535)"),
        ("postgresql://u:p@[::1/x", "its IPv6 host has no closing ']'"),
        ("postgresql://db:port/x", "its port 'port' is not a number"),
        ("mysql://db/x", "the scheme is 'mysql'"),
    ],
)
def test_index_urls(url: str, problem: str | None) -> None:
    assert index_url_problem(url) == problem


def test_a_libpq_key_value_string_is_refused_without_echoing_it() -> None:
    problem = index_url_problem("host=db password=Zq7-secret")
    assert problem is not None
    assert "key=value" in problem
    assert "Zq7" not in problem


def test_a_bad_url_setting_blocks_instead_of_falling_back() -> None:
    base = Config(baseUrl="http://127.0.0.1:9000/v1")
    config, problems = merge(base, {"baseUrl": "http://h:99999/v1"}, "settings")
    assert config.baseUrl == base.baseUrl  # the value kept is not used either:
    problem = blocking_problem(problems)
    assert problem is not None
    assert problem.message() == (
        "agent-ls setting agentLs.baseUrl (from settings): expected an http:// or https:// URL "
        "(its port 99999 is out of range (0-65535)), got 'http://h:99999/v1'; it is not used."
    )
    _, others = merge(base, {"maxRetries": -1}, "settings")
    assert blocking_problem(others) is None
    assert others[0].message().endswith("keeping maxRetries's previous value.")


def test_a_url_problem_never_shows_the_password() -> None:
    _, problems = merge(Config(), {"indexUrl": "postgresql://bob:Zq7-secret@db:99999/x"}, "s")
    assert "Zq7-secret" not in problems[0].message()
