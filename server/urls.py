"""The URL settings checked when they are loaded (`baseUrl`, `indexUrl`), so a bad one is a
setting problem naming the key, never an exception deep in a request.

Each check returns what is wrong in words that never repeat the URL (it may hold a
password), or None.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

MAX_PORT = 65535
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def base_url_problem(url: str) -> str | None:
    """What makes `url` unusable as an HTTP provider's base URL, as httpx will read it."""
    if not _SCHEME.match(url):
        return "it is not a URL"
    problem = _port_problem(_authority(url), empty=False)
    if problem is not None:
        return problem
    import httpx  # here: a command that reads settings without a base URL never loads it

    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError) as error:
        return f"it cannot be parsed: {_first_line(error)}"
    if parsed.scheme not in ("http", "https"):
        return f"the scheme is {parsed.scheme!r}"
    if not parsed.host:
        return "it has no host"
    if parsed.port is not None and not 0 <= parsed.port <= MAX_PORT:
        return f"its port {parsed.port} is out of range (0-{MAX_PORT})"
    return None


def index_url_problem(url: str) -> str | None:
    """What makes `url` unusable as a PostgreSQL index URL (`postgresql://` or
    `postgres://`; several `host:port` pairs, an empty host (a socket) are libpq's own)."""
    if not _SCHEME.match(url):
        if "=" in url:
            return (
                "it is a key=value connection string; write it as a URL: "
                "postgresql://HOST:PORT/DATABASE with USER:PASSWORD@ before the host"
            )
        return "it is not a URL"
    scheme = url.partition(":")[0].lower()
    if scheme not in ("postgresql", "postgres"):
        return f"the scheme is {scheme!r}"
    for host in _authority(url).split(","):
        problem = _port_problem(host)
        if problem is not None:
            return problem
    try:
        urlsplit(url)
    except ValueError as error:
        return f"it cannot be parsed: {_first_line(error)}"
    return None


def _authority(url: str) -> str:
    """The host[:port] part of `url` (several, comma-separated, in a libpq URL)."""
    rest = url.partition("://")[2]
    return re.split(r"[/?#]", rest, maxsplit=1)[0].rpartition("@")[2]


def _port_problem(host: str, *, empty: bool = True) -> str | None:
    """The problem with the port of `host[:port]` (IPv6 hosts in brackets), or None.
    `empty`: whether `host:` with nothing after the colon is allowed (libpq: the default
    port; httpx would take it too, and connect to port 80 or 443 the user did not write)."""
    if host.startswith("["):
        closing = host.find("]")
        if closing < 0:
            return "its IPv6 host has no closing ']'"
        after = host[closing + 1 :]
    else:
        after = host[host.rfind(":") :] if ":" in host else ""
    port = after.removeprefix(":")
    if after == ":" and not empty:
        return "its port is empty"
    if not port:
        return None
    if not port.isdigit():
        return f"its port {port!r} is not a number"
    if int(port) > MAX_PORT:
        return f"its port {port} is out of range (0-{MAX_PORT})"
    return None


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
