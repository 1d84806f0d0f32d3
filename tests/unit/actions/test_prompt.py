"""Prompt and feedback messages of the JSON action protocol."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from actions.errors import InvalidAction, PathRefused
from actions.fence_refs import resolve_references
from actions.paths import Workspace
from actions.prompt import (
    render_invalid_document,
    render_plan_progress,
    render_system_prompt,
    render_tool_result,
)
from actions.schema import ToolCallSpec, validate_action
from actions.tools import Tool, ToolResult, default_registry
from parsing.code_fences import code_fences


@pytest.fixture
def tools(tmp_path: Path) -> list[Tool]:
    return default_registry(Workspace(tmp_path)).manifests()


def _documents(text: str) -> list[dict[str, object]]:
    """Every JSON object in ``text`` that starts a line (examples may span lines), with its
    fence references resolved against the code fences that follow it (each example is a
    reply of its own)."""
    decoder = json.JSONDecoder()
    found = []
    index = text.find("\n{")
    while index != -1:
        value, end = decoder.raw_decode(text, index + 1)
        following = text.find("\n{", end)
        example = text[end : following if following != -1 else len(text)]
        found.append(resolve_references(value, code_fences(example)))
        index = following
    return found


@pytest.mark.parametrize("fenced", [True, False])
def test_every_example_in_the_prompt_is_a_valid_action(tools: list[Tool], fenced: bool) -> None:
    prompt = render_system_prompt(tools, workspace_name="shop", fenced_bodies=fenced)
    documents = _documents(prompt)
    kinds = [type(validate_action(doc)).__name__ for doc in documents]
    assert ('{"fence": 1}' in prompt) is fenced
    assert kinds == [
        "TextResponse",
        "ToolCallAction",
        "ToolCallAction",
        "ToolCallAction",
        "ToolCallAction",
        "StartMultiFile",
        "ContinueMultiFile",
    ]
    assert 'workspace "shop"' in prompt


def test_prompt_lists_each_tool_with_its_schema(tools: list[Tool]) -> None:
    prompt = render_system_prompt(tools, workspace_name="w")
    for tool in tools:
        line = next(ln for ln in prompt.splitlines() if ln.startswith(f"- {tool.name}: "))
        schema_line = prompt.splitlines()[prompt.splitlines().index(line) + 1]
        schema = json.loads(schema_line.removeprefix("  args schema: "))
        assert schema == tool.parameters


def test_prompt_states_plan_and_path_rules(tools: list[Tool]) -> None:
    prompt = render_system_prompt(tools, workspace_name="w", instructions="Use tabs.")
    assert "one file per reply" in prompt.lower()
    assert 'a leading "/" means the workspace root' in prompt
    assert "Never abbreviate a body" in prompt
    assert '"edits"' in prompt
    assert prompt.endswith("Additional instructions from the user:\nUse tabs.")


def test_no_tools() -> None:
    assert "No tools are available" in render_system_prompt([], workspace_name="w")


def test_tool_result_messages() -> None:
    call = ToolCallSpec(function_name="read_file", args={"path": "/a.py"})
    ok = render_tool_result(call, ToolResult.success("=== /a.py ==="))
    assert ok == 'Result of read_file {"path": "/a.py"}:\n=== /a.py ==='
    failed = render_tool_result(call, ToolResult.failure(PathRefused("/a.py", "no")))
    assert failed.startswith('Error from read_file {"path": "/a.py"}:\npath \'/a.py\' refused: no')
    assert "try again" in failed


def test_plan_progress_messages() -> None:
    middle = render_plan_progress(["/a.js"], ["/b.css", "/c.js"])
    assert "Applied: /a.js." in middle
    assert "Remaining files of the plan: /b.css, /c.js." in middle
    assert "continue_multi_file" in middle
    done = render_plan_progress(["/a.js", "/b.css"], [])
    assert "Applied: /a.js, /b.css." in done
    assert "plan is complete" in done
    assert "text_response" in done


def test_invalid_document_message_lists_each_problem() -> None:
    with pytest.raises(InvalidAction) as caught:
        validate_action({"action": "start_multi_file", "plan": {}, "first_file": {}})
    message = render_invalid_document(caught.value)
    lines = message.splitlines()
    assert lines[0] == "Your last action document is invalid; nothing was applied:"
    assert "- plan.description: missing required field" in lines
    assert "- first_file.action: missing; expected one of create_file, update_file" in lines
    assert lines[-1].startswith("Send the corrected document")
