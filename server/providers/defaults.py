"""Per-provider defaults for the shared `baseUrl` and `model` keys.

`Config.baseUrl` defaults to the OpenAI-compatible local server; for another provider that
default means "not set", so the provider's own default applies. `model` "default" likewise.
"""

from __future__ import annotations

from server.config import Config

OPENAI_DEFAULT_BASE_URL = Config().baseUrl
DEFAULT_MODEL_NAME = Config().model

BASE_URLS = {
    "openai": OPENAI_DEFAULT_BASE_URL,
    "anthropic": "https://api.anthropic.com",
    "ollama": "http://127.0.0.1:11434",
}
MODELS = {"anthropic": "claude-sonnet-4-5"}


def provider_base_url(config: Config, provider: str) -> str:
    """The base URL `provider` talks to: the configured one, or the provider's default."""
    if config.baseUrl == OPENAI_DEFAULT_BASE_URL:
        return BASE_URLS.get(provider, config.baseUrl)
    return config.baseUrl


def provider_model(config: Config, provider: str) -> str:
    """The model to ask for: the configured one, or the provider's default model."""
    if config.model == DEFAULT_MODEL_NAME:
        return MODELS.get(provider, config.model)
    return config.model
