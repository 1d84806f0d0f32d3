"""Secrets never leave the process: every rendering (log records with their arguments and
tracebacks, error messages, what is printed, what is sent to the client) goes through
`redact`.

A secret is the value of a secret environment variable (AGENT_LS_API_KEY, OPENAI_API_KEY,
ANTHROPIC_API_KEY, any *_API_KEY / *_TOKEN / *_SECRET / *_PASSWORD), a value registered with
`remember` (the key a provider read, whatever its variable), and what `remember_location`
finds in a URL or connection string setting (baseUrl, indexUrl) when it is loaded: the
user-info's password (as written, percent-decoded), `user:password` and its base64 (the
`Authorization: Basic` header an HTTP client makes of it and a server may echo back), the
values of `password` / `api_key` / `key` / `token`... query parameters, a libpq
`password=...`. Each is masked in the forms it can take in a message: as set (`sk-…\\r`),
stripped, escaped as repr/JSON does (`sk-…\\\\r`), and its pieces around a control
character. Values shorter than 8 characters, plain words and numbers are not masked
everywhere (`SOME_TOKEN=true` must not mask `true` in a JSON-RPC message): in their context
they are, since text renderings (`redact`) also mask by shape the user-info of any URL, an
`Authorization` value (`Basic …`, `Bearer …`), `password=…` and the secret query parameters.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
import threading
from typing import Any
from urllib.parse import unquote

MASK = "***"
SECRET_ENV_NAMES = frozenset({"AGENT_LS_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"})
SECRET_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
MIN_SECRET = 8  # shorter values are not masked (they would mask ordinary words)
# The user-info of a URL of any scheme, up to its last `@` (a password may hold one).
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)[^\s/?#\"'<>\\]+@")
_CONTROL = re.compile(r"[\x00-\x20\x7f-\x9f]+")
# Secrets by their shape, masked in text renderings whatever their length:
# an Authorization value (`Basic dXNlcjpwdw==`, `Bearer sk-...`) ...
_AUTH_VALUE = re.compile(
    r"\b(?P<lead>(?:Basic|Bearer)(?:\s+|%20))(?P<value>[A-Za-z0-9+/=._~-]{3,})"
)
# ... a `password=...` pair (libpq key=value, a query string; libpq quotes with '...') ...
_PASSWORD_PAIR = re.compile(
    r"(?i)\b(?P<lead>(?:ssl)?password\s*=\s*)(?P<value>'(?:[^'\\]|\\.)*'|[^\s&;,'\"]+)"
)
# ... and the parameters of a query string that carry keys.
SECRET_PARAMETERS = frozenset(
    {
        "password",
        "sslpassword",
        "passwd",
        "pwd",
        "api_key",
        "api-key",
        "apikey",
        "key",
        "token",
        "access_token",
        "auth",
        "secret",
        "client_secret",
        "sig",
        "signature",
    }
)
_SECRET_QUERY = re.compile(
    r"(?i)(?P<lead>[?&;](?:" + "|".join(re.escape(n) for n in sorted(SECRET_PARAMETERS)) + r")=)"
    r"(?P<value>[^&#\s\"'<>]+)"
)

_lock = threading.Lock()
_remembered: set[str] = set()
_values_cache: tuple[tuple[int, int], tuple[str, ...]] = ((-1, -1), ())


def remember(value: str | None) -> None:
    """Treat `value` as a secret from now on (in every form `forms` gives)."""
    if value and maskable(value.strip()):
        with _lock:
            _remembered.add(value)


def remember_location(location: str | None) -> None:
    """Register the secrets a URL or connection string carries (any scheme, or libpq
    `key=value` words), in every form they can take on their way out: see the module."""
    for secret in location_secrets(location or ""):
        remember(secret)


def location_secrets(location: str) -> set[str]:
    """The secret parts of `location`: user-info (password as written and decoded,
    `user:password`, its base64), secret query parameters, libpq `password=` values."""
    found: set[str] = set()
    for match in _PASSWORD_PAIR.finditer(location):
        value = match["value"]
        if value.startswith("'"):  # libpq quoting: '...' with \' and \\ escapes
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        found |= {value, unquote(value)}
    for match in _SECRET_QUERY.finditer(location):
        found |= {match["value"], unquote(match["value"])}
    _, slashes, rest = location.strip().partition("://")
    userinfo, at, _ = re.split(r"[/?#]", rest, maxsplit=1)[0].rpartition("@")
    user, _, password = userinfo.partition(":")
    if slashes and at and password:  # a user name alone is no secret
        for name, secret in ((user, password), (unquote(user), unquote(password))):
            pair = f"{name}:{secret}"
            found |= {secret, pair, base64.b64encode(pair.encode()).decode()}
    return {f for f in found if f}


def holds_remembered(value: str) -> bool:
    """Whether `value` contains a secret registered with `remember` / `remember_location`
    (the key a provider read, a URL's password): such a variable is kept from commands."""
    with _lock:
        remembered = tuple(_remembered)
    return any(secret.strip() in value for secret in remembered if secret.strip())


def forms(value: str) -> set[str]:
    """The ways `value` can show up in a message."""
    stripped = value.strip()
    found = {value, stripped}
    for text in (value, stripped):
        found.add(repr(text)[1:-1])
        found.add(json.dumps(text)[1:-1])
    found |= set(_CONTROL.split(value))
    return {f for f in found if maskable(f)}


def maskable(value: str) -> bool:
    """Whether masking `value` is safe and useful: long enough, and not a plain word or
    number (masking "true", "message" or "1234" would break JSON-RPC framing and text; real
    keys mix letters with digits or signs)."""
    return len(value) >= MIN_SECRET and not value.isalpha() and not value.isdigit()


def secret_names() -> frozenset[str]:
    """The names of the secret environment variables that are set."""
    found = frozenset(n for n in os.environ if n.endswith(SECRET_SUFFIXES))
    return found | (SECRET_ENV_NAMES & os.environ.keys())


def _values() -> tuple[str, ...]:
    """The secret values: read again whenever the environment's size or the remembered set
    changes (a server's environment does not change; a key a provider uses is remembered)."""
    global _values_cache
    with _lock:
        stamp = (len(os.environ), len(_remembered))
        if _values_cache[0] != stamp:
            values = [os.environ[n] for n in sorted(secret_names())] + sorted(_remembered)
            kept = tuple(v for v in values if maskable(v.strip()))
            _values_cache = (stamp, kept)
        return _values_cache[1]


@functools.lru_cache(maxsize=8)
def _masks(values: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[bytes, ...]]:
    """(text forms, byte forms as they appear in JSON), longest first."""
    found: set[str] = set()
    for value in values:
        found |= forms(value)
    texts = tuple(sorted(found, key=len, reverse=True))
    raw = {f.encode("utf-8", "replace") for f in texts}
    raw |= {json.dumps(f)[1:-1].encode() for f in texts}
    return texts, tuple(sorted(raw, key=len, reverse=True))


def secrets() -> tuple[str, ...]:
    """Every secret form to mask, longest first (a key that contains another is masked
    whole)."""
    return _masks(_values())[0]


def redact(text: str, *, shapes: bool = True) -> str:
    """`text` with every secret and every URL's user-info masked; with `shapes` (errors,
    logs, stderr) also every Authorization value, `password=` pair and secret query
    parameter, whatever it holds. Without (a model's answer on stdout): only the secrets."""
    for secret in secrets():
        if secret in text:
            text = text.replace(secret, MASK)
    if "@" in text:
        text = _USERINFO.sub(lambda m: m.group("scheme") + MASK + "@", text)
    if shapes:
        text = _mask_shapes(text)
    return text


def _mask_shapes(text: str) -> str:
    """Mask the secrets recognised by their place (see `redact`)."""
    if "Basic" in text or "Bearer" in text:
        text = _AUTH_VALUE.sub(_masked_auth, text)
    if "=" in text:
        text = _PASSWORD_PAIR.sub(lambda m: m["lead"] + MASK, text)
        text = _SECRET_QUERY.sub(lambda m: m["lead"] + MASK, text)
    return text


def _masked_auth(match: re.Match[str]) -> str:
    """An Authorization value masked, unless it is a plain word ("Basic authentication")."""
    value = match["value"]
    plain = value.isalpha() and sum(c.isupper() for c in value) < 2
    return match[0] if plain or value == MASK else match["lead"] + MASK


def display_url(url: str) -> str:
    """`url` as shown to the user: user-info (`user:key@`) and secret query parameters
    (`?api_key=...`) masked."""
    url = _USERINFO.sub(lambda m: m.group("scheme") + MASK + "@", url)
    return _SECRET_QUERY.sub(lambda m: m["lead"] + MASK, url) if "=" in url else url


def redact_bytes(data: bytes) -> bytes:
    """`data` (ASCII JSON-RPC framing) with secrets masked by as many `*`: the length, and
    so the Content-Length header in front of a message, stays right."""
    for raw in _masks(_values())[1]:
        if raw in data:
            data = data.replace(raw, b"*" * len(raw))
    if b"@" in data:
        text = data.decode("latin-1")
        masked = _USERINFO.sub(lambda m: m[1] + "*" * (len(m[0]) - len(m[1]) - 1) + "@", text)
        data = masked.encode("latin-1")
    return data


class RedactingWriter:
    """A pygls writer whose bytes pass `redact_bytes` on their way to the client."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def write(self, data: bytes) -> Any:
        return self.inner.write(redact_bytes(data))

    def close(self) -> Any:
        return self.inner.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
