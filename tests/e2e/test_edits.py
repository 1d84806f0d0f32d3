"""Edits that scale, end to end: search/replace blocks, fenced bodies, several tool calls per
reply, cut-off replies and undecodable documents — through a real LSP connection and the fake
LLM speaking the OpenAI wire protocol."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.e2e.conftest import chat
from tests.e2e.conversations import doc, seed_project, tool
from tests.fakellm import FakeLLM


def big_module(count: int = 3000) -> str:
    """A 3,000-line Python module: 500 small functions that all end in `return total`."""
    rows: list[str] = []
    for n in range(count // 6):
        rows += [
            f"def step_{n}(items):",
            f"    total = {n}",
            "    for item in items:",
            f"        total += item * {n % 7}",
            "    return total",
            "",
        ]
    return "\n".join(rows) + "\n"


def fenced_json(document: dict[str, Any], *fences: str) -> str:
    """A reply: prose, the document in a ```json block, then the code fences it references."""
    parts = ["Here is the change.", "```json", json.dumps(document, indent=1), "```"]
    for body in fences:
        ticks = "````" if "```" in body else "```"
        parts += [f"{ticks}python", body.removesuffix("\n"), ticks]
    return "\n".join(parts) + "\n"


def edits_doc(path: str, edits: list[dict[str, Any]], *, start: bool = False) -> dict[str, Any]:
    op = {"action": "update_file", "file": {"path": path, "edits": edits}}
    if start:
        return {
            "action": "start_multi_file",
            "plan": {"description": "Tune three steps", "files_to_modify": [path]},
            "first_file": op,
            "message": "Editing big.py",
        }
    return {"action": "continue_multi_file", "next_file": op, "message": "Fixing the blocks"}


async def command(client: LanguageClient, name: str, *args: object) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=list(args))
    )


def last_message(fakellm: FakeLLM, request: int) -> str:
    return str(fakellm.requests[request].body["messages"][-1]["content"])


async def test_search_replace_on_a_3000_line_file_retries_and_undoes_in_one_step(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    root: Path = client.workspace_path  # type: ignore[attr-defined]
    original = big_module()
    assert original.count("\n") == 3000
    (root / "big.py").write_bytes(original.encode())
    uri = client.editor.open(root / "big.py")  # type: ignore[attr-defined]

    def block(search: str, replace: str) -> dict[str, str]:
        return {"search": search, "replace": replace}

    late = block(
        "def step_450(items):\n    total = 450\n", "def step_450(items):\n    total = -450\n"
    )
    typo = block("def step_20(items):\n    totl = 20\n", "def step_20(items):\n    total = 2000\n")
    fixed = block("def step_20(items):\n    total = 20\n", typo["replace"])
    vague = block("    return total\n", "    return total + 1\n")  # in all 500 functions
    tail = "        total += item * 3\n    return total{}\n\ndef step_11("
    precise = block(tail.format(""), tail.format(" + 1"))
    fakellm.set_script(
        {
            "replies": [
                fenced_json(edits_doc("/big.py", [late, typo, vague], start=True)),
                fenced_json(edits_doc("/big.py", [fixed, precise])),
                doc(action="text_response", text_response="Three steps tuned."),
            ]
        }
    )
    result = await chat(client, "Tune steps 450, 20 and 10")

    feedback = last_message(fakellm, 1)
    assert "2 of 3 search/replace block(s) for /big.py failed" in feedback
    assert "block 2: search not found; the nearest lines are" in feedback
    assert "   121\tdef step_20(items):\n   122\t    total = 20\n" in feedback  # numbered
    assert "block 3: search matches" in feedback
    assert "add a few unchanged lines" in feedback
    assert "Matched and kept: block 1" in feedback
    assert "do not re-send them" in feedback

    expected = (
        original.replace("    total = 450\n", "    total = -450\n")
        .replace("    total = 20\n", "    total = 2000\n")
        .replace(tail.format(""), tail.format(" + 1"))
    )
    assert expected != original
    assert (root / "big.py").read_bytes() == expected.encode()
    assert client.editor.buffers[uri][1] == expected  # type: ignore[attr-defined]
    assert result["plan"]["applied"] == ["big.py"]
    assert result["text"].endswith("Three steps tuned.")

    await command(client, "agent.undo")
    assert (root / "big.py").read_bytes() == original.encode()
    assert client.editor.buffers[uri][1] == original  # type: ignore[attr-defined]


TEMPLATE = '''QUOTE = "it's \\"quoted\\" {not json}"
FENCE = """
```json
{"action": "text_response", "text_response": "}"}
```
"""


def render(x):
    return f"`{x}` -> {{done}}"
'''
APP_BEFORE = 'print("v1")\n'
APP_SEARCH = 'print("v1")\n'
APP_REPLACE = 'from src.template import render\n\nprint(render("`v2`"))  # }\n'


async def test_fenced_bodies_are_written_byte_exact(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    root: Path = client.workspace_path  # type: ignore[attr-defined]
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text(APP_BEFORE)
    create = {
        "action": "start_multi_file",
        "plan": {
            "description": "Templates",
            "files_to_modify": ["/src/template.py", "/src/app.py"],
        },
        "first_file": {
            "action": "create_file",
            "file": {"path": "/src/template.py", "content": {"fence": 1}},
        },
        "message": "Creating the template",
    }
    update = edits_doc("/src/app.py", [{"search": {"fence": 1}, "replace": {"fence": 2}}])
    fakellm.set_script(
        {
            "replies": [
                fenced_json(create, TEMPLATE),
                fenced_json(update, APP_SEARCH, APP_REPLACE),
                doc(action="text_response", text_response="Done."),
            ]
        }
    )
    assert "````python\n" in fenced_json(create, TEMPLATE)  # the body holds ``` itself
    result = await chat(client, "Add a template module")
    assert (root / "src" / "template.py").read_bytes() == TEMPLATE.encode()
    assert (root / "src" / "app.py").read_bytes() == APP_REPLACE.encode()
    assert result["plan"]["applied"] == ["src/template.py", "src/app.py"]


async def test_a_missing_fence_reference_is_a_precise_error(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    root: Path = seed_project(client.workspace_path)  # type: ignore[attr-defined]
    update = edits_doc("/src/app.py", [{"search": {"fence": 1}, "replace": {"fence": 3}}])
    update = {**update, "action": "start_multi_file", "first_file": update["next_file"]}
    update["plan"] = {"description": "x", "files_to_modify": ["/src/app.py"]}
    fakellm.set_script(
        {
            "replies": [
                fenced_json(update, "print('v1')\n", "print('v2')\n"),
                doc(action="text_response", text_response="Giving up."),
            ]
        }
    )
    await chat(client, "change it")
    feedback = last_message(fakellm, 1)
    assert "first_file.file.edits[0].replace: refers to fence 3" in feedback
    assert "this reply has 2 fenced code block(s)" in feedback
    assert (root / "src" / "app.py").read_text() == "print('v1')\n"


async def test_three_tool_calls_in_one_reply_all_run_in_order(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    seed_project(client.workspace_path)  # type: ignore[attr-defined]
    ranged = {"path": "/src/util.py", "start_line": 2}
    three = "\n".join(
        [
            "Let me look around.",
            tool("list_files"),
            "```json\n" + tool("read_file", path="/src/app.py") + "\n```",
            "<tool_call>" + json.dumps({"name": "read_file", "arguments": ranged}) + "</tool_call>",
        ]
    )
    fakellm.set_script(
        {"replies": [three, doc(action="text_response", text_response="Seen them.")]}
    )
    result = await chat(client, "look")
    results = last_message(fakellm, 1)
    listing = results.index("[1/3] tool_call list_files:")
    app = results.index("[2/3] tool_call read_file:")
    util = results.index("[3/3] tool_call read_file:")
    assert listing < app < util
    assert "print('v1')" in results[app:util]
    assert "     2\t    return 1" in results[util:]  # the ranged read, numbered
    calls = [p["data"]["name"] for p in client.chat.items if p["kind"] == "tool_call"]  # type: ignore[attr-defined]
    assert calls == ["list_files", "read_file", "read_file"]
    assert result["text"].endswith("Seen them.")


async def test_a_file_cut_at_the_token_limit_asks_for_edits_and_writes_nothing(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    root: Path = seed_project(client.workspace_path)  # type: ignore[attr-defined]
    whole = doc(
        action="start_multi_file",
        plan={"description": "Rewrite app", "files_to_modify": ["/src/app.py"]},
        first_file={
            "action": "update_file",
            "file": {"path": "/src/app.py", "content": "print('v2')\n" * 200},
        },
    )
    cut = whole[: len(whole) // 2]
    edit = edits_doc(
        "/src/app.py", [{"search": "print('v1')\n", "replace": "print('v2')\n"}], start=True
    )
    fakellm.set_script(
        {
            "replies": [
                {"content": cut, "finish_reason": "length"},
                fenced_json(edit),
                doc(action="text_response", text_response="Done."),
            ]
        }
    )
    result = await chat(client, "rewrite app.py")
    feedback = last_message(fakellm, 1)
    assert "reached the output token limit" in feedback
    assert "(start_multi_file: update_file /src/app.py) was cut off" in feedback
    assert "Do not send the whole of /src/app.py again" in feedback
    assert "update_file edits" in feedback
    assert (root / "src" / "app.py").read_text() == "print('v2')\n"
    assert result["plan"]["applied"] == ["src/app.py"]


async def test_a_text_answer_cut_at_the_token_limit_is_continued(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    fakellm.set_script(
        {
            "replies": [
                {"content": "The answer has two parts: first", "finish_reason": "length"},
                ", second.",
            ]
        }
    )
    result = await chat(client, "explain")
    assert "Continue exactly where it stopped" in last_message(fakellm, 1)
    assert result["text"] == "The answer has two parts: first, second."
    cut_records = [b for b in result["blocks"] if b["truncated"]]
    assert [b["text"] for b in cut_records] == ["The answer has two parts: first"]


async def test_an_undecodable_bare_document_goes_back_to_the_model(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    fakellm.set_script(
        {
            "replies": [
                'Sure.\n{"action": "text_response" : "text_response": "hi"}',
                doc(action="text_response", text_response="hi"),
            ]
        }
    )
    result = await chat(client, "hello")
    feedback = last_message(fakellm, 1)
    assert "not valid JSON" in feedback
    assert "text_response document at line 2" in feedback
    assert "Expecting ',' delimiter at line 1, column 28" in feedback
    assert result["text"].endswith("hi")
