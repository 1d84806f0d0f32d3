"""A fake LLM server for tests and demos: OpenAI, Anthropic and Ollama wire protocols.

Python: ``from tests.fakellm import FakeLLM``; CLI: ``python -m tests.fakellm --script F``.
"""

from tests.fakellm.recording import RecordedRequest, last_user_message
from tests.fakellm.script import Reply, Script, ToolCall, parse_reply
from tests.fakellm.server import FakeLLM

__all__ = [
    "FakeLLM",
    "RecordedRequest",
    "Reply",
    "Script",
    "ToolCall",
    "last_user_message",
    "parse_reply",
]
