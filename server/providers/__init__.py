"""LLM providers: one module each, all speaking `Provider` (see base.py)."""

from __future__ import annotations

from server.config import Config
from server.providers.base import ChatMessage, Provider, ProviderError, StreamChunk
from server.providers.openai import OpenAIProvider

__all__ = ["ChatMessage", "Provider", "ProviderError", "StreamChunk", "make_provider"]


def make_provider(config: Config) -> Provider:
    """The provider named by the configuration."""
    if config.provider == "openai":
        return OpenAIProvider(config)
    raise ProviderError(
        config.provider,
        None,
        f"unknown provider {config.provider!r}",
        "set agentLs.provider (or AGENT_LS_PROVIDER) to one of: openai",
    )
