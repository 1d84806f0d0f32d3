"""What the streaming HTTP providers (anthropic, ollama) share: one connection pool, error
building with a redacted key, status handling and the retry loop of retry.py.

A subclass names its URL, headers and body and turns the response into chunks (`events`);
transport errors, timeouts and retryable statuses become RetryableFailure here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx

from server.config import Config
from server.providers.base import ProviderError, StreamChunk
from server.providers.retry import (
    MAX_RETRY_AFTER,
    RETRYABLE_STATUS,
    RetryableFailure,
    error_message,
    retry_after_seconds,
    with_retries,
)


class HttpStreamProvider:
    """Base of a provider speaking a streaming HTTP API."""

    name = "http"
    retryable_status = RETRYABLE_STATUS

    def __init__(self, config: Config, base_url: str) -> None:
        self.config = config
        self.base_url = base_url.rstrip("/")
        self._client: httpx.AsyncClient | None = None

    def client(self) -> httpx.AsyncClient:
        """One connection pool per provider (a new client costs ~20 ms)."""
        if self._client is None:
            timeout = httpx.Timeout(self.config.requestTimeout, connect=self.config.connectTimeout)
            self._client = httpx.AsyncClient(timeout=timeout, trust_env=False)
        return self._client

    def secret(self) -> str | None:
        """The API key, if the provider sends one (redacted from every error)."""
        return None

    def hint(self, status: int | None) -> str:
        raise NotImplementedError

    def error(self, status: int | None, detail: str) -> ProviderError:
        key = self.secret()
        if key:
            detail = detail.replace(key, "***")
        return ProviderError(self.name, status, detail, self.hint(status))

    def events(self, response: httpx.Response) -> AsyncIterator[StreamChunk]:
        """The chunks of one successful (200) streaming response."""
        raise NotImplementedError

    def post_stream(
        self, url: str, body: Mapping[str, Any], headers: Mapping[str, str]
    ) -> AsyncIterator[StreamChunk]:
        """POST and stream the reply, with retries before the first chunk."""
        return with_retries(self.config, lambda: self._once(url, body, headers), self.error)

    async def _once(
        self, url: str, body: Mapping[str, Any], headers: Mapping[str, str]
    ) -> AsyncIterator[StreamChunk]:
        try:
            async with self.client().stream("POST", url, json=body, headers=headers) as response:
                if response.status_code != 200:
                    await self._raise_for_status(response)
                async for chunk in self.events(response):
                    yield chunk
        except httpx.TimeoutException as exc:
            raise RetryableFailure(None, f"timed out ({type(exc).__name__})") from None
        except httpx.TransportError as exc:
            raise RetryableFailure(None, self.connection_failed(url, exc)) from None

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

    def connection_failed(self, url: str, exc: httpx.TransportError) -> str:
        return f"connection to {url} failed: {type(exc).__name__}: {exc}"

    def rejected(self, status: int, detail: str) -> Exception:
        """The error for a non-retryable status (subclasses may recognise special cases)."""
        return self.error(status, detail)
