"""The model's search tools: search_docs (index) and search_files (grep), through the registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from actions.paths import Workspace
from actions.tool_adapters import tool_adapter
from actions.tools import ToolRegistry, default_registry


@pytest.fixture
def registry(tmp_path: Path) -> ToolRegistry:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ports.md").write_text(
        "# Ports\n\nEach service listens on a port.\n\n| service | port |\n|---|---|\n"
        "| api | 8080 |\n| db | 5432 |\n"
    )
    (tmp_path / "app.py").write_text("PORT = 8080\n\n\ndef serve():\n    return PORT\n")
    (tmp_path / ".gitignore").write_text("dist/\n")
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "bundle.js").write_text("const PORT = 8080;\n")
    (tmp_path / ".env").write_text("PORT=8080\n")
    (tmp_path / "blob.bin.md").write_bytes(b"8080\0\0")
    return default_registry(Workspace(tmp_path))


async def test_search_docs_returns_the_whole_table_with_its_place(registry: ToolRegistry) -> None:
    result = await registry.call("search_docs", {"query": "which port does each service use"})
    assert result.ok
    first = result.data["hits"][0]
    assert first["path"] == "docs/ports.md"
    assert first["type"] == "table"
    assert first["content"] == "| service | port |\n|---|---|\n| api | 8080 |\n| db | 5432 |"
    assert (first["startLine"], first["endLine"]) == (5, 8)
    assert first["headings"] == ["Ports"]
    assert "/docs/ports.md lines 5-8 (table) — Ports" in result.text


async def test_search_docs_rejects_bad_arguments(registry: ToolRegistry) -> None:
    result = await registry.call("search_docs", {"query": "x", "k": 0})
    assert not result.ok
    assert result.error_kind == "invalid_tool_call"


async def test_search_files_is_gitignore_and_secret_aware(registry: ToolRegistry) -> None:
    result = await registry.call("search_files", {"pattern": "8080"})
    assert result.ok
    assert result.text.splitlines() == [
        "/app.py:1: PORT = 8080",
        "/docs/ports.md:7: | api | 8080 |",
    ]


async def test_search_files_regex_path_and_smart_case(registry: ToolRegistry) -> None:
    regex = await registry.call("search_files", {"pattern": r"def \w+\(", "regex": True})
    assert regex.text == "/app.py:4: def serve():"
    scoped = await registry.call("search_files", {"pattern": "port", "path": "/docs"})
    assert [m["path"] for m in scoped.data["matches"]] == ["/docs/ports.md"] * 3
    exact = await registry.call("search_files", {"pattern": "Port"})
    assert exact.text == "/docs/ports.md:1: # Ports"
    bad = await registry.call("search_files", {"pattern": "(", "regex": True})
    assert not bad.ok
    assert "not a valid regular expression" in bad.text
    outside = await registry.call("search_files", {"pattern": "x", "path": "../"})
    assert not outside.ok


async def test_search_files_output_is_bounded(tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("hit " + "y" * 1000 + "\n" * 1 + "hit\n" * 500)
    registry = default_registry(Workspace(tmp_path))
    result = await registry.call("search_files", {"pattern": "hit"})
    lines = result.text.splitlines()
    assert len(lines) == 201
    assert lines[0].endswith("…")
    assert len(lines[0]) < 330
    assert lines[-1].startswith("(stopped at 200 matches")
    assert result.data["truncated"] is True


@pytest.mark.parametrize("protocol", ["json", "xml", "native"])
def test_the_search_tools_are_offered_in_every_protocol(
    registry: ToolRegistry, protocol: str
) -> None:
    adapter = tool_adapter(protocol)
    prompt = adapter.system_prompt(registry.manifests(), workspace_name="ws")
    assert '"search_docs"' in prompt or "search_docs" in prompt
    assert "search_files" in prompt
    if protocol == "native":
        native = adapter.native_tools(registry.manifests()) or []
        assert {"search_docs", "search_files"} <= {tool.name for tool in native}
