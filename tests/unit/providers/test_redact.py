"""Secret masking in every rendering, and the API key cleaned and checked at load."""

from __future__ import annotations

import base64
import json
import logging
import subprocess
import sys

import pytest

from server.config import ApiKeyError, Config, clean_api_key
from server.logs import RedactingFormatter
from server.providers import make_provider
from server.providers.base import ProviderError
from server.redact import display_url, redact, redact_bytes, remember_location

KEY = "sk-unit-5d9e1b7c3a0f2468"


@pytest.fixture(autouse=True)
def key_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_LS_API_KEY", KEY + "\r\n")


def test_every_form_of_the_key_is_masked() -> None:
    text = f"a {KEY} b {KEY!r} c {(KEY + chr(13))!r} d b'Bearer {KEY}\\r'"
    assert KEY not in redact(text)
    assert redact(text).count("***") == 4


def test_url_user_info_is_masked() -> None:
    assert display_url("https://me:pw-123456@api.example/v1") == "https://***@api.example/v1"
    assert "tok-abcdef" not in redact("see http://tok-abcdef@host:1/x for details")
    assert display_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1"


def test_bytes_to_the_client_keep_their_length() -> None:
    data = b'{"message": "' + KEY.encode() + b'\\r failed at https://u:p@h/v1"}'
    masked = redact_bytes(data)
    assert len(masked) == len(data)
    assert KEY.encode() not in masked
    assert b"u:p@" not in masked


def test_log_records_are_masked_in_message_args_and_traceback() -> None:
    formatter = RedactingFormatter("%(message)s")
    try:
        raise ValueError(f"Illegal header value b'Bearer {KEY}\\r'")
    except ValueError:
        record = logging.LogRecord(
            "pygls", logging.ERROR, __file__, 1, "request %s failed", (KEY,), sys.exc_info()
        )
    rendered = formatter.format(record)
    assert "Traceback" in rendered
    assert KEY not in rendered


def test_an_uncaught_exception_is_masked_on_stderr() -> None:
    code = (
        "import os; from server.logs import setup_logging; setup_logging(); "
        "raise RuntimeError('key=' + os.environ['AGENT_LS_API_KEY'])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    assert "RuntimeError: key=***" in done.stderr
    assert KEY not in done.stderr


@pytest.mark.parametrize("raw", [KEY + "\r", KEY + "\r\n", f"  {KEY}\n", f"\t{KEY}"])
def test_surrounding_whitespace_is_stripped(raw: str) -> None:
    assert clean_api_key("X", raw) == KEY
    assert Config().api_key({"AGENT_LS_API_KEY": raw}) == KEY


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (KEY[:8] + "\n" + KEY[8:], "a control character (character 9 of"),
        (KEY[:8] + " " + KEY[8:], "a space"),
        (KEY + "é", "a non-ASCII character"),
    ],
)
def test_a_key_that_cannot_be_sent_is_refused_without_showing_it(raw: str, problem: str) -> None:
    with pytest.raises(ApiKeyError) as failure:
        clean_api_key("MY_KEY", raw)
    assert str(failure.value).startswith(f"the API key in MY_KEY contains {problem}")
    assert KEY[:8] not in str(failure.value)


def test_blank_names_fall_back_to_the_next_variable() -> None:
    env = {"MINE": " \r\n", "AGENT_LS_API_KEY": KEY}
    assert Config(apiKeyEnv="MINE").api_key(env) == KEY
    assert Config().api_key({"AGENT_LS_API_KEY": "\n"}) is None


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_bad_key_is_a_provider_error_when_the_provider_is_made(
    monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    monkeypatch.setenv("AGENT_LS_API_KEY", KEY[:8] + "\n" + KEY[8:])
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ProviderError) as failure:
        make_provider(Config(provider=provider))
    message = str(failure.value)
    assert f"provider {provider} failed" in message
    assert "AGENT_LS_API_KEY contains a control character" in message
    assert "Hint: set AGENT_LS_API_KEY to the key alone" in message
    assert KEY[:8] not in message
    assert KEY[8:] not in message


def test_plain_words_and_numbers_in_secret_variables_never_break_a_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in {"A_TOKEN": "true", "B_SECRET": "message", "C_API_KEY": "12345678"}.items():
        monkeypatch.setenv(name, value)
    body = b'{"jsonrpc":"2.0","id":12345678,"result":{"applied":true,"message":"ok"}}'
    framed = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    assert redact_bytes(framed) == framed
    assert redact(framed.decode()) == framed.decode()


PASSWORD = "Zq7-pw%2Fhere"  # percent-encoded as a URL carries it; decoded: Zq7-pw/here


@pytest.mark.parametrize(
    ("location", "hidden"),
    [
        (f"https://bob:{PASSWORD}@api.example/v1", [PASSWORD, "Zq7-pw/here", "bob:Zq7-pw/here"]),
        (f"postgresql://bob:{PASSWORD}@db:5432/x", [PASSWORD, "Zq7-pw/here"]),
        ("postgresql://bob@db/x?sslmode=require&password=Zq7-pw-query", ["Zq7-pw-query"]),
        ("https://api.example/v1?api_key=Zq7-key-query&x=1", ["Zq7-key-query"]),
        ("host=db port=5432 password=Zq7-pw-libpq user=bob", ["Zq7-pw-libpq"]),
        ("host=db password='Zq7 quoted\\'pw' user=bob", ["Zq7 quoted'pw"]),
    ],
)
def test_every_form_of_a_location_secret_is_masked_once_remembered(
    location: str, hidden: list[str]
) -> None:
    remember_location(location)
    basic = base64.b64encode(b"bob:Zq7-pw/here").decode()
    for secret in hidden:
        text = f"failed: {secret} / {json.dumps(secret)} / Basic {basic}"
        assert secret not in redact(text)
        assert basic not in redact(text)
        assert secret.encode() not in redact_bytes(json.dumps({"m": text}).encode())


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("server said: Authorization: Basic YTpi", "server said: Authorization: Basic ***"),
        ("echo: Bearer abc.def-123", "echo: Bearer ***"),
        ("Basic authentication failed", "Basic authentication failed"),
        ("Bearer token missing", "Bearer token missing"),
        ("bad conninfo host=x password=pw1 port=5", "bad conninfo host=x password=*** port=5"),
        ("bad conninfo password='a b c' port=5", "bad conninfo password=*** port=5"),
        ("GET /v1?key=abc&x=1 failed", "GET /v1?key=***&x=1 failed"),
        ("GET /v1?token=abc failed", "GET /v1?token=*** failed"),
        ("postgresql://u:p@ss@h/db", "postgresql://***@h/db"),
        ('{"url": "http://h", "mail": "me@x.org"}', '{"url": "http://h", "mail": "me@x.org"}'),
    ],
)
def test_secrets_are_masked_by_their_shape_in_text(text: str, masked: str) -> None:
    assert redact(text) == masked


def test_a_model_answer_on_stdout_keeps_its_password_examples() -> None:
    assert redact("set password=example in the file", shapes=False) == (
        "set password=example in the file"
    )


def test_psycopg_repeating_a_reported_connection_loss_stays_off_stderr() -> None:
    # psycopg logs "error ignored terminating <Pipeline>" after the error agent-ls already
    # reports as its one line (tests/unit/index/test_pg_failures.py races on it).
    code = (
        "import logging; from server.logs import setup_logging; setup_logging(); "
        "logging.getLogger('psycopg').warning('error ignored terminating pipeline'); "
        "logging.getLogger('agent_ls').warning('ours')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0
    assert "error ignored" not in done.stderr
    assert "ours" in done.stderr
