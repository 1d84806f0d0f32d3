"""Where the user is, for the rules files: the editor's chat context and ACP attachments."""

from __future__ import annotations

from pathlib import Path

from acp import (
    embedded_text_resource,
    image_block,
    resource_block,
    resource_link_block,
    text_block,
)

from server.acp.prompt_text import attached_file
from server.protocol import ChatContext
from server.rules import LOCAL_RULES_LIMIT, context_path, rules_limit


def test_the_first_attached_file_embedded_or_linked(tmp_path: Path) -> None:
    first, second = tmp_path / "pkg/a.py", tmp_path / "b.py"
    embedded = resource_block(embedded_text_resource(first.as_uri(), "x = 1"))
    linked = resource_link_block("b.py", second.as_uri())
    assert attached_file([text_block("hi"), embedded, linked]) == first
    assert attached_file([image_block("AAAA", "image/png"), linked]) == second
    remote = resource_link_block("page", "https://example.org/x")
    assert attached_file([text_block("hi"), remote]) is None


def test_the_editor_context_names_a_file_uri_only(tmp_path: Path) -> None:
    source = tmp_path / "src/main.py"
    assert context_path(ChatContext(uri=source.as_uri())) == source
    assert context_path(ChatContext(uri="untitled:Untitled-1")) is None
    assert context_path(None) is None


def test_the_embedded_model_gets_a_lower_cap() -> None:
    assert rules_limit("local") == LOCAL_RULES_LIMIT == 4096
    assert rules_limit("openai") == rules_limit(None) == 32 * 1024
