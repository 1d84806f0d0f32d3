"""Secret masking in every rendering, and the API key cleaned and checked at load."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from server.config import ApiKeyError, Config, clean_api_key
from server.logs import RedactingFormatter
from server.providers import make_provider
from server.providers.base import ProviderError
from server.redact import display_url, redact, redact_bytes

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
