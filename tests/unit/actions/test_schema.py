"""Action documents: the SPEC §2 examples validate; bad ones fail with precise lines."""

from __future__ import annotations

import json
from typing import Any

import pytest

from actions.errors import InvalidAction
from actions.schema import (
    ContinueMultiFile,
    CreateFileOp,
    DeleteFileOp,
    StartMultiFile,
    TextResponse,
    ToolCallAction,
    UpdateFileOp,
    action_json_schema,
    validate_action,
)
from actions.schema_errors import MAX_ERROR_LINES
from actions.tools import Tool

START = {
    "action": "start_multi_file",
    "plan": {
        "description": "Short summary of the whole task.",
        "files_to_modify": ["/path/file1.js", "/path/file2.css"],
    },
    "first_file": {"action": "create_file", "file": {"path": "/path/file1.js", "content": "..."}},
    "message": "Starting the refactor...",
}
CONTINUE = {
    "action": "continue_multi_file",
    "next_file": {"action": "update_file", "file": {"path": "/path/file2.css", "content": "a{}"}},
    "message": "Now updating the CSS...",
}


def test_spec_examples_validate_to_typed_models() -> None:
    text = validate_action({"action": "text_response", "text_response": "Sure."})
    assert isinstance(text, TextResponse)
    assert text.text_response == "Sure."

    listing = validate_action(
        {"action": "tool_call", "tool_call": {"function_name": "list_files", "args": {}}}
    )
    assert isinstance(listing, ToolCallAction)
    assert listing.tool_call.function_name == "list_files"

    batch = validate_action(
        {
            "action": "tool_call",
            "tool_call": {"function_name": "read_file", "args": {"paths": ["/a", "/b"]}},
        }
    )
    assert isinstance(batch, ToolCallAction)
    assert batch.tool_call.args == {"paths": ["/a", "/b"]}

    start = validate_action(START)
    assert isinstance(start, StartMultiFile)
    assert isinstance(start.first_file, CreateFileOp)
    assert (start.first_file.path, start.first_file.content) == ("/path/file1.js", "...")
    assert start.plan.files_to_modify == ["/path/file1.js", "/path/file2.css"]

    cont = validate_action(CONTINUE)
    assert isinstance(cont, ContinueMultiFile)
    assert isinstance(cont.next_file, UpdateFileOp)
    assert cont.message == "Now updating the CSS..."


def test_delete_file_without_content_inside_continue() -> None:
    doc = {
        "action": "continue_multi_file",
        "next_file": {"action": "delete_file", "file": {"path": "/old.js"}},
    }
    cont = validate_action(doc)
    assert isinstance(cont, ContinueMultiFile)
    assert isinstance(cont.next_file, DeleteFileOp)
    assert cont.next_file.path == "/old.js"
    assert cont.next_file.content is None
    assert cont.message == ""


def test_lenient_on_extras_missing_args_and_message() -> None:
    call = validate_action(
        {"action": "tool_call", "tool_call": {"function_name": "list_files"}, "thought": "hm"}
    )
    assert isinstance(call, ToolCallAction)
    assert call.tool_call.args == {}


def _with(base: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    doc = json.loads(json.dumps(base))
    *parents, last = path.split(".")
    node = doc
    for key in parents:
        node = node[key]
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return doc


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (
            {"action": "explain"},
            "action: expected one of text_response, tool_call, start_multi_file, "
            "continue_multi_file; got 'explain'",
        ),
        ({"text_response": "hi"}, "action: missing; expected one of text_response, tool_call"),
        (["action"], "document: expected a JSON object; got an array"),
        (
            _with(START, "first_file.action", "delete_file"),
            "first_file.action: expected one of create_file, update_file; got 'delete_file'",
        ),
        (
            _with(START, "first_file.action", KeyError),
            "first_file.action: missing; expected one of create_file, update_file",
        ),
        (
            _with(CONTINUE, "next_file.action", "rename_file"),
            "next_file.action: expected one of create_file, update_file, delete_file; "
            "got 'rename_file'",
        ),
        (_with(START, "first_file.file.content", KeyError), "first_file.file.content: missing"),
        (
            _with(CONTINUE, "next_file.file.content", 12),
            "next_file.file.content: expected a string; got 12",
        ),
        (_with(START, "plan.files_to_modify", []), "plan.files_to_modify: expected at least 1"),
        (
            _with(START, "plan.files_to_modify", ["/a", 5]),
            "plan.files_to_modify[1]: expected a string; got 5",
        ),
        (_with(START, "plan", "do it"), "plan: expected an object; got 'do it'"),
        (_with(START, "first_file.file.path", ""), "first_file.file.path: must not be empty"),
        (
            {"action": "text_response", "text_response": None},
            "text_response: expected a string; got null",
        ),
        (
            {"action": "tool_call", "tool_call": {"args": {}}},
            "tool_call.function_name: missing",
        ),
        (
            {"action": "tool_call", "tool_call": {"function_name": "read_file", "args": [1]}},
            "tool_call.args: expected an object; got an array",
        ),
    ],
)
def test_invalid_documents_name_field_expectation_and_allowed_values(
    document: Any, expected: str
) -> None:
    with pytest.raises(InvalidAction) as caught:
        validate_action(document)
    assert expected in str(caught.value)


def test_multiple_errors_one_per_line_and_capped() -> None:
    doc = {
        "action": "start_multi_file",
        "plan": {"description": 1, "files_to_modify": list(range(20))},
        "first_file": {"action": "update_file", "file": {"path": 3, "content": 4}},
    }
    with pytest.raises(InvalidAction) as caught:
        validate_action(doc)
    lines = str(caught.value).splitlines()
    assert lines[0] == "plan.description: expected a string; got 1"
    assert len(lines) == MAX_ERROR_LINES + 1
    assert lines[-1].startswith("... and ")
    assert caught.value.errors == tuple(lines)


def test_json_schema_is_self_contained_and_closed() -> None:
    schema = action_json_schema()
    text = json.dumps(schema)
    assert "$ref" not in text
    assert "$defs" not in text
    kinds = [branch["properties"]["action"]["const"] for branch in schema["oneOf"]]
    assert kinds == ["text_response", "tool_call", "start_multi_file", "continue_multi_file"]
    start = schema["oneOf"][2]
    assert start["additionalProperties"] is False
    first = start["properties"]["first_file"]["oneOf"]
    assert [b["properties"]["action"]["const"] for b in first] == ["create_file", "update_file"]
    assert "maxLength" not in text


def _all_nodes(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(_all_nodes(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_all_nodes(item))
    return found


def test_bounded_schema_bounds_every_string_and_array() -> None:
    schema = action_json_schema(bounded=True)
    nodes = _all_nodes(schema)
    strings = [n for n in nodes if n.get("type") == "string" and "const" not in n]
    arrays = [n for n in nodes if n.get("type") == "array"]
    assert strings
    assert arrays
    assert all("maxLength" in n for n in strings)
    assert all("maxItems" in n for n in arrays)
    plan = schema["oneOf"][2]["properties"]["plan"]["properties"]
    assert plan["files_to_modify"]["items"]["maxLength"] == 256


def test_schema_specialised_per_tool() -> None:
    manifest = Tool(
        "read_file",
        "reads",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    )

    schema = action_json_schema(tools=[manifest], bounded=True)
    body = schema["oneOf"][1]["properties"]["tool_call"]["anyOf"][0]
    assert body["properties"]["function_name"] == {"const": "read_file"}
    assert body["properties"]["args"]["properties"]["path"]["maxLength"] == 256
    assert body["properties"]["args"]["additionalProperties"] is False
