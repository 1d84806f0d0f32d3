"""Summaries of tables and long code written by a model, bounded and cached.

``ModelSummarizer`` is a ``Summarizer`` around ``ask`` (a prompt in, the model's reply out:
the server passes its active LLM provider). Bounded: at most ``concurrency`` questions at
once, each given ``timeout`` seconds, the element cut at ``MAX_PROMPT_CHARS`` and the answer
at ``summary.MAX_SUMMARY`` characters (``ask`` bounds the tokens). Cached by content hash
(element, caption, heading path and the model's name) in a small SQLite file beside the
index, so a restart or a re-chunked document never asks again for a table that did not
change. Any error, timeout or empty answer gives ``None``: the indexer keeps the
deterministic summary. After ``max_failures`` failures in a row it stops asking for
``cooldown`` seconds (a model that is down does not slow every document).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from actions.index.markdown_elements import Element
from actions.index.summary import MAX_SUMMARY
from actions.private import private_sqlite

log = logging.getLogger(__name__)
Ask = Callable[[str], Awaitable[str]]
MAX_PROMPT_CHARS = 6000
PROMPT = (
    "Write ONE sentence (at most 40 words) saying what the following {what} contains, for a "
    "search index: name its subject and what it lists or does. Answer with the sentence only."
    "\n\nDocument: {document}\nSection: {section}\n{caption}\n{content}"
)


class SummariesUnavailable(Exception):
    """Raised by ``ask`` when no model should be asked at all (the message says why): the
    summarizer then keeps the deterministic summaries without asking again."""


class ModelSummarizer:
    """See the module docstring."""

    def __init__(
        self,
        ask: Ask,
        cache: Path | None,
        *,
        model: str,
        concurrency: int = 4,
        timeout: float = 30.0,
        max_failures: int = 3,
        cooldown: float = 300.0,
    ) -> None:
        self.ask = ask
        self.model = model
        self.timeout = timeout
        self.max_failures = max_failures
        self.cooldown = cooldown
        self._slots = asyncio.Semaphore(concurrency)
        self._failures = 0
        self._paused_until = 0.0
        self._cache = _Cache(cache) if cache is not None else None
        self.asked = 0  # questions sent to the model (cache hits are not)
        self.failed = 0  # of them, how many gave no summary (error, timeout)
        self.error = ""  # the last failure
        self.unavailable = ""  # why no model is asked at all (SummariesUnavailable)

    async def summarize(self, element: Element, caption: str, document: str = "") -> str | None:
        key = self._key(element, caption)
        if self._cache is not None and (cached := self._cache.get(key)) is not None:
            return cached
        if self.unavailable or self.paused:
            return None
        async with self._slots:
            try:
                self.asked += 1
                reply = await asyncio.wait_for(
                    self.ask(prompt(element, caption, document)), self.timeout
                )
            except SummariesUnavailable as error:
                self.asked -= 1
                self.unavailable = str(error)
                return None
            except Exception as error:  # any provider trouble: the fallback summary stays
                self._failed(error)
                return None
        self._failures = 0
        sentence = clean(reply)
        if sentence and self._cache is not None:
            self._cache.put(key, sentence)
        return sentence or None

    @property
    def paused(self) -> bool:
        return time.monotonic() < self._paused_until

    def report(self) -> dict[str, object]:
        """For status: ``provider`` (the model, questions asked and failed, paused, the last
        error) or ``fallback`` with the reason no model is asked."""
        if self.unavailable:
            return {"source": "fallback", "reason": self.unavailable}
        found: dict[str, object] = {"source": "provider", "model": self.model}
        found.update(asked=self.asked, failed=self.failed, paused=self.paused)
        if self.error:
            found["error"] = self.error
        return found

    def _failed(self, error: Exception) -> None:
        self._failures += 1
        self.failed += 1
        self.error = str(error) or type(error).__name__
        log.warning("the model did not summarize a table: %s", self.error)
        if self._failures >= self.max_failures:
            self._paused_until = time.monotonic() + self.cooldown
            self._failures = 0
            log.warning("summaries paused for %.0f s: deterministic ones meanwhile", self.cooldown)

    def _key(self, element: Element, caption: str) -> str:
        parts = [self.model, element.type, caption, "\0".join(element.headings), element.content]
        return hashlib.sha256("\n\0".join(parts).encode()).hexdigest()

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()


def prompt(element: Element, caption: str, document: str = "") -> str:
    what = "table" if element.type == "table" else f"{element.language or 'code'} code block"
    content = element.content
    if len(content) > MAX_PROMPT_CHARS:
        content = content[:MAX_PROMPT_CHARS] + "\n[...]"
    return PROMPT.format(
        what=what,
        document=document or "(unknown)",
        section=" > ".join(element.headings) or "(top)",
        caption=f"Caption: {caption}\n" if caption else "",
        content=content,
    )


_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def clean(reply: str) -> str:
    """The reply as one line: reasoning blocks, quotes and a ``Summary:`` label removed."""
    text = " ".join(_THINKING.sub(" ", reply).split())
    text = re.sub(r"^(?:summary|sentence)\s*:\s*", "", text, flags=re.IGNORECASE)
    text = text.strip("\"'` ")
    if len(text) > MAX_SUMMARY:
        cut = text.rfind(" ", 0, MAX_SUMMARY - 1)
        text = text[: cut if cut > 0 else MAX_SUMMARY - 1] + "…"
    return text


class _Cache:
    """Summaries by key in one SQLite file (one connection, guarded by a lock)."""

    def __init__(self, path: Path) -> None:
        self._lock = threading.Lock()
        try:
            private_sqlite(path)
            self._db: sqlite3.Connection | None = sqlite3.connect(
                path, check_same_thread=False, isolation_level=None
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS summaries (key TEXT PRIMARY KEY, summary TEXT NOT NULL)"
            )
        except (sqlite3.Error, OSError) as error:  # no cache: summaries are asked again
            log.warning("the summary cache %s cannot be used: %s", path, error)
            self._db = None

    def get(self, key: str) -> str | None:
        with self._lock:
            if self._db is None:
                return None
            try:
                row = self._db.execute(
                    "SELECT summary FROM summaries WHERE key = ?", (key,)
                ).fetchone()
            except sqlite3.Error:
                return None
        return str(row[0]) if row else None

    def put(self, key: str, summary: str) -> None:
        with self._lock:
            if self._db is None:
                return
            try:
                self._db.execute(
                    "INSERT OR REPLACE INTO summaries (key, summary) VALUES (?, ?)", (key, summary)
                )
            except sqlite3.Error as error:
                log.warning("a summary could not be cached: %s", error)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
