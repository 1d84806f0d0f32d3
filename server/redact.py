"""Secrets never leave the process: every rendering (log records with their arguments and
tracebacks, error messages, what is printed, what is sent to the client) goes through
`redact`.

A secret is the value of a secret environment variable (AGENT_LS_API_KEY, OPENAI_API_KEY,
ANTHROPIC_API_KEY, any *_API_KEY / *_TOKEN / *_SECRET / *_PASSWORD), a value registered with
`remember` (the key a provider read, whatever its variable), and the user-info part of a URL
(`https://user:key@host`). Each is masked in the forms it can take in a message: as set
(`sk-…\\r`), stripped, escaped as repr/JSON does (`sk-…\\\\r`), and its pieces around a
control character.
"""

from __future__ import annotations

import json
import os
import re
import threading

MASK = "***"
SECRET_ENV_NAMES = frozenset({"AGENT_LS_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"})
SECRET_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
MIN_SECRET = 4  # shorter values are not masked (they would mask ordinary words)
MIN_PIECE = 8  # pieces of a value split at a control character
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)[^\s/?#@]+@")
_CONTROL = re.compile(r"[\x00-\x20\x7f-\x9f]+")

_lock = threading.Lock()
_remembered: set[str] = set()
_names_cache: tuple[int, frozenset[str]] = (-1, frozenset())


def remember(value: str | None) -> None:
    """Treat `value` as a secret from now on (in every form `forms` gives)."""
    if value and len(value.strip()) >= MIN_SECRET:
        with _lock:
            _remembered.add(value)


def forms(value: str) -> set[str]:
    """The ways `value` can show up in a message."""
    stripped = value.strip()
    found = {value, stripped}
    for text in (value, stripped):
        found.add(repr(text)[1:-1])
        found.add(json.dumps(text)[1:-1])
    found |= {p for p in _CONTROL.split(value) if len(p) >= MIN_PIECE}
    return {f for f in found if len(f) >= MIN_SECRET}


def secret_names() -> frozenset[str]:
    """The secret environment variables set now (names cached while the environment's size
    does not change)."""
    global _names_cache
    size, names = _names_cache
    if size != len(os.environ):
        names = frozenset(n for n in os.environ if n.endswith(SECRET_SUFFIXES)) | SECRET_ENV_NAMES
        _names_cache = (len(os.environ), names)
    return names


def secrets() -> list[str]:
    """Every secret form to mask, longest first (a key that contains another is masked
    whole)."""
    values = [v for n in secret_names() if (v := os.environ.get(n))]
    with _lock:
        values += _remembered
    found: set[str] = set()
    for value in values:
        if len(value.strip()) >= MIN_SECRET:
            found |= forms(value)
    return sorted(found, key=len, reverse=True)


def redact(text: str) -> str:
    """`text` with every secret and every URL's user-info masked."""
    for secret in secrets():
        if secret in text:
            text = text.replace(secret, MASK)
    if "@" in text:
        text = _USERINFO.sub(lambda m: m.group("scheme") + MASK + "@", text)
    return text


def display_url(url: str) -> str:
    """`url` as shown to the user: user-info (`user:key@`) masked."""
    return _USERINFO.sub(lambda m: m.group("scheme") + MASK + "@", url)


def redact_bytes(data: bytes) -> bytes:
    """`data` (ASCII JSON-RPC framing) with secrets masked by as many `*`: the length, and
    so the Content-Length header in front of a message, stays right."""
    for secret in secrets():
        for form in {secret, json.dumps(secret)[1:-1]}:
            raw = form.encode("utf-8", "replace")
            if raw in data:
                data = data.replace(raw, b"*" * len(raw))
    if b"@" in data:
        text = data.decode("latin-1")
        masked = _USERINFO.sub(lambda m: m[1] + "*" * (len(m[0]) - len(m[1]) - 1) + "@", text)
        data = masked.encode("latin-1")
    return data
