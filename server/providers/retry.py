"""Retries shared by the HTTP providers: which failures are retried, and how long to wait.

A request is retried with exponential backoff (or the server's Retry-After, capped) on 429,
5xx, timeouts and connection errors, but only before the first chunk reached the caller:
once text reached the user, a failure is final. A Retry-After longer than the cap is not
waited for: the error is reported at once, naming the wait the server asked for.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import random
from collections.abc import AsyncIterator, Callable
from email.utils import parsedate_to_datetime

from server.config import Config
from server.providers.base import ProviderError, StreamChunk

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
MAX_RETRY_AFTER = 30.0


class RetryableFailure(Exception):
    """A failure worth another attempt if nothing was streamed yet."""

    def __init__(
        self,
        status: int | None,
        detail: str,
        retry_after: float | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.retry_after = retry_after
        self.hint = hint  # None: the provider's hint for the status


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date), None if absent/bad."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())


def backoff_delay(config: Config, attempt: int, retry_after: float | None) -> float:
    """The wait before retry number `attempt` (0-based): Retry-After, else exponential."""
    if retry_after is not None:
        return min(retry_after, MAX_RETRY_AFTER)
    base: float = config.retryBaseDelay * (2**attempt)
    return base * (1 + random.random() / 10)


def error_message(raw: str) -> str:
    """The human part of an error body: OpenAI/Anthropic `{"error": {"message"}}`, Ollama
    `{"error": "..."}`, or the raw text (first 200 characters)."""
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        return raw.strip()[:200]
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or error)[:200]
    return str(error or data)[:200]


async def with_retries(
    config: Config,
    attempt: Callable[[], AsyncIterator[StreamChunk]],
    fail: Callable[[int | None, str, str | None], ProviderError],
) -> AsyncIterator[StreamChunk]:
    """Run `attempt()` until it completes; retry RetryableFailure before the first chunk.

    `fail(status, detail, hint)` builds the final error (with the provider's hint) when retries are
    exhausted, when the failure came after output, or when Retry-After exceeds the cap.
    """
    tries = 0
    while True:
        started = False
        try:
            async for chunk in attempt():
                started = True
                yield chunk
            return
        except RetryableFailure as failure:
            if started or tries >= config.maxRetries:
                raise fail(failure.status, failure.detail, failure.hint) from None
            wait = failure.retry_after
            if wait is not None and wait > MAX_RETRY_AFTER:
                detail = f"{failure.detail} (Retry-After {wait:.0f}s)"
                raise fail(failure.status, detail, failure.hint) from None
            await asyncio.sleep(backoff_delay(config, tries, wait))
            tries += 1
