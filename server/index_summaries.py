"""The active LLM provider writes the index's table and long-code summaries (issue 14 item 2).

- the server (live index, `agent.reindex`): the provider chat turns use (settings >
  environment > a detected Ollama / OpenAI-compatible server), resolved when the first
  summary is asked; the embedded `local` model only when chosen explicitly (a 135M model
  asked about every table would slow indexing for little);
- `agent-ls index` / `agent-ls search`: the provider the environment configures
  (AGENT_LS_PROVIDER, AGENT_LS_BASE_URL, AGENT_LS_MODEL_PATH or AGENT_LS_CLI_COMMAND); none
  configured, no provider is asked.

Each question is one short chat (a system line and the prompt of
``actions.index.model_summary``); the reply is read up to ``REPLY_CHARS`` characters and the
stream closed (the provider's own max-tokens setting applies too). Bounds, cache and fallback:
``ModelSummarizer``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from actions.index.model_summary import ModelSummarizer, SummariesUnavailable
from actions.index.store import default_index_dir
from server.config import ENV_VARS, Config

if TYPE_CHECKING:  # the providers are imported when a summary is asked (`agent-ls search`
    from server.providers.base import Provider  # starts without them)
    from server.resolve import Resolution

REPLY_CHARS = 800
SYSTEM = "You write one-sentence descriptions of tables and code for a search index."
CACHE_FILE = "summaries.sqlite3"
CHOOSING = ("provider", "baseUrl", "modelPath", "cliCommand")
LOCAL_NOT_ASKED = "the embedded model is not asked for summaries unless it is chosen"
SUMMARIES_OFF = "turned off by the setting indexSummaries (AGENT_LS_INDEX_SUMMARIES)"
NO_CLI_PROVIDER = (
    "no provider is configured in the environment (AGENT_LS_PROVIDER, AGENT_LS_BASE_URL, "
    "AGENT_LS_MODEL_PATH or AGENT_LS_CLI_COMMAND)"
)


class NoSummaryProvider(SummariesUnavailable):
    """No provider should write summaries (the message says why)."""


def summarizer(root: Path, model: str, get: Callable[[], Awaitable[Provider]]) -> ModelSummarizer:
    """A summarizer asking the provider ``get`` gives; cached beside the workspace's index."""

    async def ask(prompt: str) -> str:
        from server.providers.base import ChatMessage

        provider = await get()
        messages = [ChatMessage("system", SYSTEM), ChatMessage("user", prompt)]
        parts: list[str] = []
        stream = provider.stream_chat(messages)
        try:
            async for chunk in stream:
                parts.append(chunk.text)
                if sum(map(len, parts)) >= REPLY_CHARS:
                    break
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    await close()
        return "".join(parts)

    return ModelSummarizer(ask, default_index_dir(root) / CACHE_FILE, model=model)


def allowed(resolution: Resolution) -> None:
    """Raise ``NoSummaryProvider`` for the embedded model chosen only because nothing else is."""
    chosen = resolution.candidates_tried[-1] if resolution.candidates_tried else None
    if chosen is not None and chosen.source == "local":
        raise NoSummaryProvider(LOCAL_NOT_ASKED)


def cli_summarizer(
    root: Path, config: Config, *, off: bool = False
) -> tuple[ModelSummarizer | None, str]:
    """The summarizer of `agent-ls index` / `search`: the environment's provider, if any and
    not turned off (``off``: `--no-summaries`, or ``indexSummaries`` false); else None and
    why."""
    if off:
        return None, "turned off by --no-summaries"
    if not config.indexSummaries:
        return None, SUMMARIES_OFF
    if not any(os.environ.get(ENV_VARS[key], "").strip() for key in CHOOSING):
        return None, NO_CLI_PROVIDER
    providers: list[Provider] = []

    async def get() -> Provider:
        from server.providers import make_provider
        from server.resolve import resolve_provider

        if not providers:
            resolution = await resolve_provider(config, set())
            allowed(resolution)
            providers.append(make_provider(resolution.config, root))
        return providers[0]

    return summarizer(root, f"{config.provider}:{config.baseUrl}:{config.model}", get), ""
