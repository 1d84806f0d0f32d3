"""What the streaming HTTP providers (openai, anthropic, ollama) share: one connection pool,
error building with the secrets redacted, status handling and the retry loop of retry.py.

A subclass names its URL, headers and body and turns the response lines into chunks
(`events`); transport errors, timeouts and retryable statuses become RetryableFailure here.

The body is cut into lines here (`body_lines`), straight from the decoded bytes: one
generator instead of httpx's text and line layers (a streamed reply is hundreds of small
chunks, each paying every layer), and only CR / LF / CRLF end a line (a U+2028 inside a JSON
string is text, not a line break as str.splitlines would have it).

Connections are reused: after the provider's end-of-reply event, the rest of the body (the
last chunk of the chunked encoding, a trailing `[DONE]`) is read, so the connection goes back
to the pool instead of being closed. A body still open after that (a server that never ends
its response) is dropped after DRAIN_TIMEOUT; the reply was complete anyway.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
import re
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import httpx
import pydantic

from server.config import ApiKeyError, Config
from server.providers.base import ProviderError, StreamChunk
from server.providers.events import malformed_event
from server.providers.retry import (
    MAX_RETRY_AFTER,
    RETRYABLE_STATUS,
    RetryableFailure,
    error_message,
    retry_after_seconds,
    with_retries,
)
from server.redact import display_url

log = logging.getLogger(__name__)

DRAIN_TIMEOUT = 1.0  # seconds to read what follows the end-of-reply event
DRAIN_LINES = 64
_LINE_END = re.compile(r"\r\n|\r|\n")


class HttpStreamProvider:
    """Base of a provider speaking a streaming HTTP API."""

    name = "http"
    retryable_status = RETRYABLE_STATUS
    wire_format = "streaming"  # what the provider speaks, for the malformed-event hint

    def __init__(self, config: Config, base_url: str) -> None:
        self.config = config
        self.base_url = base_url.rstrip("/")
        self.shown_url = display_url(self.base_url)
        self._client: httpx.AsyncClient | None = None

    def client(self) -> httpx.AsyncClient:
        """One connection pool per provider (a new client costs ~20 ms, a new connection a
        TCP (and TLS) handshake per request)."""
        if self._client is None:
            timeout = httpx.Timeout(self.config.requestTimeout, connect=self.config.connectTimeout)
            self._client = httpx.AsyncClient(timeout=timeout, trust_env=False)
        return self._client

    def read_key(self, read: Callable[[], str | None]) -> str | None:
        """The API key (`read()`), checked when the provider is made: a value that cannot be
        a key is a ProviderError naming the variable, not a failed request that shows it."""
        try:
            return read()
        except ApiKeyError as exc:
            hint = f"set {exc.variable} to the key alone (no spaces or line breaks inside)"
            raise self.error(None, str(exc), hint) from None

    def hint(self, status: int | None) -> str:
        raise NotImplementedError

    def error(self, status: int | None, detail: str, hint: str | None = None) -> ProviderError:
        """A ProviderError; ProviderError redacts every secret from its text."""
        return ProviderError(self.name, status, detail, hint or self.hint(status))

    def events(self, lines: AsyncIterator[str]) -> AsyncIterator[StreamChunk]:
        """The chunks of one successful (200) streaming response, from its lines. Returns
        after the provider's end-of-reply event (the rest of the body is drained here)."""
        raise NotImplementedError

    def post_stream(
        self, url: str, body: Mapping[str, Any], headers: Mapping[str, str]
    ) -> AsyncIterator[StreamChunk]:
        """POST and stream the reply, with retries before the first chunk."""
        return with_retries(self.config, lambda: self._once(url, body, headers), self.error)

    async def _once(
        self, url: str, body: Mapping[str, Any], headers: Mapping[str, str]
    ) -> AsyncIterator[StreamChunk]:
        replying = False  # the status line came: a transport error now is a broken reply
        try:
            async with self.client().stream("POST", url, json=body, headers=headers) as response:
                replying = True
                if response.status_code != 200:
                    await self._raise_for_status(response)
                lines = body_lines(body_chunks(response))
                try:
                    async for chunk in self.events(lines):
                        yield chunk
                except pydantic.ValidationError as exc:
                    raise self.malformed(exc) from None
                await _drain(lines)
        except httpx.TimeoutException as exc:
            raise self.timed_out(exc, replying) from None
        except httpx.TransportError as exc:
            raise self.transport_failed(exc, replying) from None

    def malformed(self, exc: pydantic.ValidationError) -> ProviderError:
        hint = (
            f"the server at {self.shown_url} does not speak the {self.wire_format} format; "
            "check agentLs.provider and agentLs.baseUrl"
        )
        return self.error(200, malformed_event(exc), hint)

    def ended_early(self) -> RetryableFailure:
        """The body ended without the provider's end-of-reply event."""
        hint = (
            f"the server at {self.shown_url} ended the reply too early; try again, and check "
            "the server's log if it keeps happening"
        )
        return RetryableFailure(200, "the stream ended before the reply was done", hint=hint)

    def timed_out(self, exc: httpx.TimeoutException, replying: bool) -> RetryableFailure:
        if isinstance(exc, httpx.ConnectTimeout):
            detail = f"could not connect to {self.shown_url} within {self.config.connectTimeout:g}s"
            return RetryableFailure(None, detail)
        hint = (
            f"the server at {self.shown_url} is slow or stuck; retry, or raise "
            "agentLs.requestTimeout"
        )
        if replying:
            detail = f"the reply stalled: no data for {self.config.requestTimeout:g}s"
            return RetryableFailure(200, detail, hint=hint)
        detail = f"no answer within {self.config.requestTimeout:g}s ({type(exc).__name__})"
        return RetryableFailure(None, detail, hint=hint)

    def transport_failed(self, exc: httpx.TransportError, replying: bool) -> RetryableFailure:
        """What went wrong on the connection, never the raw exception text (it can carry a
        header value, hence a key)."""
        kind = type(exc).__name__
        if replying:
            detail = f"the server closed the connection in the middle of the reply ({kind})"
            hint = (
                f"the server at {self.shown_url} dropped the reply (a crash, a restart or a "
                "proxy timeout); try again, and check the server's log if it keeps happening"
            )
            return RetryableFailure(200, detail, hint=hint)
        if isinstance(exc, httpx.ConnectError):
            return RetryableFailure(None, f"cannot connect to {self.shown_url} ({kind})")
        if isinstance(exc, httpx.LocalProtocolError | httpx.UnsupportedProtocol):
            detail = f"the request to {self.shown_url} could not be sent: invalid URL or header"
            hint = "check agentLs.baseUrl and the API key variable"
            return RetryableFailure(None, detail, hint=hint)
        detail = f"the connection to {self.shown_url} failed before the reply ({kind})"
        return RetryableFailure(None, detail)

    async def _raise_for_status(self, response: httpx.Response) -> None:
        raw = (await response.aread()).decode("utf-8", "replace")
        detail = error_message(raw) or response.reason_phrase or "error"
        status = response.status_code
        if status in self.retryable_status:
            retry_after = retry_after_seconds(response.headers.get("retry-after"))
            if retry_after is not None and retry_after > MAX_RETRY_AFTER:
                raise self.error(status, f"{detail} (Retry-After {retry_after:.0f}s)")
            raise RetryableFailure(status, detail, retry_after)
        raise self.rejected(status, detail)

    def rejected(self, status: int, detail: str) -> Exception:
        """The error for a non-retryable status (subclasses may recognise special cases)."""
        return self.error(status, detail)


def body_chunks(response: httpx.Response) -> AsyncIterator[bytes]:
    """The body's bytes as they arrive: raw unless the server compressed them."""
    if response.headers.get("content-encoding", "identity").strip().lower() == "identity":
        return response.aiter_raw()
    return response.aiter_bytes()


async def body_lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[str]:
    """The lines of a streamed body (SSE or NDJSON) as they arrive, without their ending
    (LF, CRLF or a lone CR); UTF-8 (invalid bytes replaced), a character or a CRLF split
    between chunks joined. A last line without an ending is yielded when the body ends."""
    decode = codecs.getincrementaldecoder("utf-8")("replace").decode
    pending = ""
    async for chunk in chunks:
        text = pending + decode(chunk)
        held = ""
        if text.endswith("\r"):  # perhaps the first half of a CRLF: wait for the next byte
            text, held = text[:-1], "\r"
        lines = _LINE_END.split(text) if "\r" in text else text.split("\n")
        pending = lines.pop() + held
        for line in lines:
            yield line
    lines = _LINE_END.split(pending + decode(b"", True))
    for line in lines[:-1] if not lines[-1] else lines:
        yield line


async def _drain(lines: AsyncIterator[str]) -> None:
    """Read the rest of a finished reply so its connection can be reused (bounded)."""
    try:
        async with asyncio.timeout(DRAIN_TIMEOUT):
            count = 0
            async for _ in lines:
                count += 1
                if count > DRAIN_LINES:
                    return
    except (TimeoutError, httpx.HTTPError):
        log.debug("the body after the reply was not read to its end; connection dropped")
