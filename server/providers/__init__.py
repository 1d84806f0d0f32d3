"""LLM providers: one module each, all speaking `Provider` (see base.py)."""

from __future__ import annotations

from pathlib import Path

from server.config import Config
from server.providers.base import ChatMessage, Provider, ProviderError, StreamChunk
from server.providers.openai import OpenAIProvider

__all__ = ["PROVIDERS", "ChatMessage", "Provider", "ProviderError", "StreamChunk", "make_provider"]

PROVIDERS = ("openai", "anthropic", "ollama", "local", "cli")


def make_provider(config: Config, workspace: Path | None = None) -> Provider:
    """The provider named by the configuration (`workspace`: where the `cli` command runs)."""
    if config.provider == "openai":
        return OpenAIProvider(config)
    if config.provider == "anthropic":
        from server.providers.anthropic import AnthropicProvider

        return AnthropicProvider(config)
    if config.provider == "ollama":
        from server.providers.ollama import OllamaProvider

        return OllamaProvider(config)
    if config.provider == "local":
        from server.providers.local import LocalProvider

        return LocalProvider(config)
    if config.provider == "cli":
        from server.providers.cli import CliProvider

        return CliProvider(config, workspace)
    raise ProviderError(
        config.provider,
        None,
        f"unknown provider {config.provider!r}",
        "set agentLs.provider (or AGENT_LS_PROVIDER) to one of: " + ", ".join(PROVIDERS),
    )
