"""AI code actions end to end: instant listing, resolve running the agent, Explain's chat."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Union

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled
from pytest_lsp import ClientServerConfig, LanguageClient

from server.protocol import CMD_CHAT, CMD_UNDO
from tests.e2e.conftest import settings_for
from tests.e2e.conversations import doc, tool
from tests.fakellm import FakeLLM, last_user_message

CALC = (
    '"""Arithmetic helpers."""\n'
    "\n"
    "\n"
    "def add(a, b):\n"
    "    return a - b\n"
    "\n"
    "\n"
    "def mul(a, b):\n"
    "    return a * b\n"
)
FIXED = CALC.replace("return a - b", "return a + b")
DOCUMENTED = CALC.replace("def mul(a, b):\n", 'def mul(a, b):\n    """The product of a and b."""\n')
TESTS = "from src.calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
# Behaviour that does not depend on the editor's capabilities runs with one editor only.
ONE_EDITOR = pytest.mark.parametrize("client", ["neovim"], indirect=True)
SELECTION_TITLES = ["Rewrite with AI…", "Explain", "Add docstrings", "Write tests"]


def rng(l1: int, c1: int, l2: int, c2: int) -> types.Range:
    return types.Range(types.Position(l1, c1), types.Position(l2, c2))


def diagnostic(line: int, message: str, source: str = "pyright") -> types.Diagnostic:
    return types.Diagnostic(range=rng(line, 4, line, 16), message=message, source=source)


def plan_updating(path: str, content: str, then: str) -> list[str]:
    """The model's replies: a one-file plan, then its final answer."""
    return [
        doc(
            action="start_multi_file",
            plan={"description": "edit " + path, "files_to_modify": [path]},
            first_file={"action": "update_file", "file": {"path": path, "content": content}},
        ),
        doc(action="text_response", text_response=then),
    ]


def tell_code_actions_from_commands(client: LanguageClient) -> None:
    """lsprotocol structures every listed item that has a `command` key as a bare Command,
    dropping a CodeAction's kind and data; a Command's `command` is a string, a CodeAction's
    an object. The test client tells them apart the way editors do."""
    converter = client.protocol._converter

    def structure(item: Any, _: type) -> types.Command | types.CodeAction:
        if isinstance(item.get("command"), str):
            return converter.structure(item, types.Command)
        return converter.structure(item, types.CodeAction)

    converter.register_structure_hook(Union[types.Command, types.CodeAction], structure)  # noqa: UP007


@pytest.fixture
def calc(client: LanguageClient) -> Path:
    root: Path = client.workspace_path  # type: ignore[attr-defined]
    (root / "src").mkdir()
    (root / "src" / "calc.py").write_text(CALC)
    (root / "tests").mkdir()
    (root / "tests" / "test_add.py").write_text("from src.calc import add\n")
    return root / "src" / "calc.py"


async def actions_for(
    client: LanguageClient,
    path: Path,
    where: types.Range,
    diagnostics: list[types.Diagnostic] | None = None,
    only: list[str] | None = None,
) -> list[types.CodeAction]:
    tell_code_actions_from_commands(client)
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            range=where,
            context=types.CodeActionContext(diagnostics=diagnostics or [], only=only),
        )
    )
    assert result is not None
    assert all(isinstance(a, types.CodeAction) for a in result), [type(a) for a in result]
    return list(result)  # type: ignore[arg-type]


def titled(actions: list[types.CodeAction], title: str) -> types.CodeAction:
    (action,) = [a for a in actions if a.title == title]
    return action


def resolves_command_lazily(client: LanguageClient) -> bool:
    options = client.capabilities.text_document.code_action  # type: ignore[union-attr]
    return "command" in options.resolve_support.properties  # type: ignore[union-attr]


async def test_listing_is_instant_and_offers_fixes_in_range_and_selection_actions(
    client: LanguageClient, fakellm: FakeLLM, calc: Path
) -> None:
    in_range = diagnostic(4, "Operator '-' looks wrong for add")
    elsewhere = diagnostic(8, "mul is never used")
    actions = await actions_for(client, calc, rng(3, 0, 5, 0), [in_range, elsewhere])

    assert [a.title for a in actions] == [
        "Ask AI to fix: Operator '-' looks wrong for add",
        *SELECTION_TITLES,
    ]
    assert actions[0].kind == types.CodeActionKind.QuickFix
    assert list(actions[0].diagnostics or []) == [in_range]
    assert {a.kind for a in actions[1:]} == {types.CodeActionKind.RefactorRewrite}
    assert all(a.edit is None and a.data for a in actions)
    assert fakellm.requests == []  # listing never asks the model


@ONE_EDITOR
async def test_cursor_without_selection_gets_only_the_fixes_under_it(
    client: LanguageClient, fakellm: FakeLLM, calc: Path
) -> None:
    first = diagnostic(4, "first problem\nwith a second line")
    second = diagnostic(4, "second problem " + "x" * 200)
    cursor = rng(4, 10, 4, 10)
    actions = await actions_for(client, calc, cursor, [first, second, diagnostic(8, "far")])

    titles = [a.title for a in actions]
    assert titles[0] == "Ask AI to fix: first problem"
    assert titles[1].startswith("Ask AI to fix: second problem xxx")
    assert titles[1].endswith("…")
    assert len(titles[1]) < 120
    assert len(titles) == 2
    assert await actions_for(client, calc, rng(0, 0, 0, 0), [first]) == []
    assert fakellm.requests == []


@ONE_EDITOR
async def test_only_filter_selects_quickfixes_or_refactors(
    client: LanguageClient, calc: Path
) -> None:
    problem = diagnostic(4, "wrong operator")
    selection = rng(3, 0, 5, 0)
    fixes = await actions_for(client, calc, selection, [problem], only=["quickfix"])
    assert [a.kind for a in fixes] == [types.CodeActionKind.QuickFix]
    refactors = await actions_for(client, calc, selection, [problem], only=["refactor"])
    assert [a.title for a in refactors] == SELECTION_TITLES
    assert await actions_for(client, calc, selection, [problem], only=["source"]) == []


@ONE_EDITOR
async def test_a_file_outside_the_workspace_can_only_be_explained(
    client: LanguageClient, fakellm: FakeLLM, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text("x = 1\ny = 2\n")
    actions = await actions_for(client, outside, rng(0, 0, 1, 0), [diagnostic(0, "unused")])
    assert [a.title for a in actions] == ["Explain"]


async def test_resolving_a_fix_applies_it_to_disk_and_buffer_and_undo_reverts_it(
    client: LanguageClient, fakellm: FakeLLM, calc: Path
) -> None:
    uri = client.editor.open(calc)  # type: ignore[attr-defined]
    problem = diagnostic(4, "add() subtracts", source="mylint")
    (action,) = await actions_for(client, calc, rng(4, 10, 4, 10), [problem])
    fakellm.set_script({"replies": plan_updating("/src/calc.py", FIXED, "add() now adds.")})

    resolved = await client.code_action_resolve_async(action)

    assert calc.read_text() == FIXED
    assert client.editor.buffers[uri][1] == FIXED  # type: ignore[attr-defined]
    assert resolved.edit is not None  # resolved: nothing left for the client to apply
    assert not resolved.edit.changes
    assert not resolved.edit.document_changes
    asked = last_user_message(fakellm.requests[0])
    assert "/src/calc.py, line 5 (mylint): add() subtracts" in asked
    assert "def add(a, b):\n    return a - b" in asked  # the surrounding lines
    assert '"""Arithmetic helpers."""' in asked
    shown = [m.message for m in client.messages if m.type == types.MessageType.Info]
    assert any("src/calc.py" in m and "add() now adds." in m for m in shown), shown
    assert resolved.data["result"]["checkpointId"]  # type: ignore[index]

    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=CMD_UNDO, arguments=[])
    )
    assert calc.read_text() == CALC
    assert client.editor.buffers[uri][1] == CALC  # type: ignore[attr-defined]


async def test_resolve_reports_progress_while_the_agent_runs(
    client: LanguageClient, fakellm: FakeLLM, calc: Path
) -> None:
    actions = await actions_for(client, calc, rng(7, 0, 9, 0))
    fakellm.set_script({"replies": plan_updating("/src/calc.py", DOCUMENTED, "Documented.")})
    before = set(client.progress_reports)

    await client.code_action_resolve_async(titled(actions, "Add docstrings"))

    # the workspace index's first build may show its own bar meanwhile
    (token,) = [
        token
        for token in set(client.progress_reports) - before
        if client.progress_reports[token][0].title != "agent-ls: indexing the workspace"
    ]
    kinds = [getattr(r, "kind", None) for r in client.progress_reports[token]]
    assert kinds[0] == "begin"
    assert kinds[-1] == "end"
    assert calc.read_text() == DOCUMENTED
    asked = last_user_message(fakellm.requests[0])
    assert "Add docstrings" in asked
    assert "/src/calc.py (lines 8-10)" in asked
    assert "def mul(a, b):\n    return a * b\n" in asked  # the selected text


@ONE_EDITOR
async def test_write_tests_creates_a_test_file_where_the_project_keeps_them(
    client: LanguageClient, fakellm: FakeLLM, calc: Path
) -> None:
    actions = await actions_for(client, calc, rng(7, 0, 9, 0))
    fakellm.set_script(
        {
            "replies": [
                tool("list_files"),
                doc(
                    action="start_multi_file",
                    plan={
                        "description": "tests for mul",
                        "files_to_modify": ["/tests/test_mul.py"],
                    },
                    first_file={
                        "action": "create_file",
                        "file": {"path": "/tests/test_mul.py", "content": TESTS},
                    },
                ),
                doc(action="text_response", text_response="Added tests/test_mul.py."),
            ]
        }
    )
    await client.code_action_resolve_async(titled(actions, "Write tests"))

    assert (calc.parent.parent / "tests" / "test_mul.py").read_text() == TESTS
    assert calc.read_text() == CALC
    assert "Write tests" in last_user_message(fakellm.requests[0])
    assert "tests/test_add.py" in fakellm.requests[1].body["messages"][-1]["content"]


@ONE_EDITOR
async def test_rewrite_uses_the_instruction_the_client_put_in_data(
    client: LanguageClient, fakellm: FakeLLM, calc: Path
) -> None:
    action = titled(await actions_for(client, calc, rng(3, 0, 5, 0)), "Rewrite with AI…")
    assert isinstance(action.data, dict)
    action.data["instruction"] = "Use operator.add instead"
    fakellm.set_script({"replies": ["Nothing to change here."]})

    await client.code_action_resolve_async(action)

    asked = last_user_message(fakellm.requests[0])
    assert asked.startswith("Use operator.add instead")
    assert "def add(a, b):\n    return a - b\n" in asked
    assert calc.read_text() == CALC
    shown = [m.message for m in client.messages]
    assert any("Nothing to change here." in m for m in shown), shown


async def test_explain_resolves_to_the_chat_command_and_the_server_can_run_it(
    client: LanguageClient, fakellm: FakeLLM, calc: Path
) -> None:
    explain = titled(await actions_for(client, calc, rng(3, 0, 5, 0)), "Explain")
    assert (explain.command is None) == resolves_command_lazily(client)

    resolved = await client.code_action_resolve_async(explain)

    assert fakellm.requests == []  # opening the chat is the client's move
    assert resolved.command is not None
    assert resolved.command.command == CMD_CHAT
    (arguments,) = resolved.command.arguments or []
    assert isinstance(arguments, dict)
    assert "Explain" in arguments["message"]
    assert arguments["context"]["uri"] == calc.as_uri()
    assert arguments["context"]["selectionText"] == "def add(a, b):\n    return a - b\n"

    fakellm.set_script({"replies": ["add() returns the difference of a and b."]})
    result: Any = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=CMD_CHAT, arguments=[arguments])
    )
    assert result["text"] == "add() returns the difference of a and b."
    assert "return a - b" in last_user_message(fakellm.requests[0])
    shown = [m.message for m in client.messages if m.type == types.MessageType.Info]
    assert any("add() returns the difference of a and b." in m for m in shown), shown
    assert calc.read_text() == CALC


@ONE_EDITOR
async def test_provider_failure_during_resolve_is_shown_and_changes_nothing(
    client: LanguageClient, fakellm: FakeLLM, calc: Path
) -> None:
    (action,) = await actions_for(client, calc, rng(4, 0, 4, 0), [diagnostic(4, "bad")])
    fakellm.set_script({"replies": [plan_updating("/src/calc.py", FIXED, "")[0], {"fault": "500"}]})

    with pytest.raises(JsonRpcException) as failure:
        await client.code_action_resolve_async(action)

    assert "HTTP 500" in str(failure.value)
    assert calc.read_text() == CALC  # the half-done plan was rolled back
    errors = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert any("HTTP 500" in m for m in errors), errors


@ONE_EDITOR
async def test_resolving_something_that_is_not_ours_is_invalid_params(
    client: LanguageClient,
) -> None:
    with pytest.raises(JsonRpcException) as failure:
        await client.code_action_resolve_async(
            types.CodeAction(title="x", data={"action": "dance", "uri": "file:///x"})
        )
    assert "invalid params" in str(failure.value)


@ONE_EDITOR
async def test_cancelling_the_resolve_stops_the_turn_and_rolls_the_fix_back(
    client: LanguageClient, fakellm: FakeLLM, calc: Path
) -> None:
    (action,) = await actions_for(client, calc, rng(4, 0, 4, 0), [diagnostic(4, "bad")])
    slow = {"content": "x" * 2000, "chunk_size": 2, "delay_ms": 10}
    fakellm.set_script({"replies": [plan_updating("/src/calc.py", FIXED, "")[0], slow]})
    request = asyncio.ensure_future(
        client.protocol.send_request_async(  # type: ignore[no-untyped-call]
            types.CODE_ACTION_RESOLVE, action, msg_id="fix-1"
        )
    )
    chat = client.chat  # type: ignore[attr-defined]
    await chat.wait_for(lambda items: any(p["kind"] == "file_applied" for p in items))
    await chat.wait_for(lambda items: items[-1]["kind"] == "text")
    assert calc.read_text() == FIXED  # the plan's file was applied before the cancel

    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="fix-1"))

    with pytest.raises(JsonRpcException) as cancelled:
        await request
    assert cancelled.value.code == JsonRpcRequestCancelled.CODE
    await chat.wait_for(lambda items: any("rolledBack" in (p.get("data") or {}) for p in items))
    assert calc.read_text() == CALC


@pytest_lsp.fixture(  # type: ignore[untyped-decorator]
    config=ClientServerConfig(server_command=[sys.executable, "-m", "server"])
)
async def plain_client(
    lsp_client: LanguageClient, fakellm: FakeLLM, tmp_path: Path
) -> AsyncIterator[None]:
    """An editor that lists code actions but cannot resolve them (no data/resolve support)."""
    workspace = tmp_path / "plain"
    workspace.mkdir()
    lsp_client.workspace_path = workspace  # type: ignore[attr-defined]
    literals = types.ClientCodeActionLiteralOptions(
        code_action_kind=types.ClientCodeActionKindOptions(value_set=["quickfix", "refactor"])
    )
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                text_document=types.TextDocumentClientCapabilities(
                    code_action=types.CodeActionClientCapabilities(
                        code_action_literal_support=literals
                    )
                ),
            ),
            root_uri=workspace.as_uri(),
            initialization_options={"agentLs": settings_for(fakellm)},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_an_editor_that_cannot_resolve_gets_commands_the_server_runs(
    plain_client: LanguageClient, fakellm: FakeLLM
) -> None:
    root: Path = plain_client.workspace_path  # type: ignore[attr-defined]
    calc = root / "calc.py"
    calc.write_text(CALC)
    actions = await actions_for(plain_client, calc, rng(3, 0, 5, 0), [diagnostic(4, "bad")])
    assert [a.title for a in actions] == ["Ask AI to fix: bad", *SELECTION_TITLES]
    assert all(a.command is not None and a.command.command == CMD_CHAT for a in actions)
    assert fakellm.requests == []

    fakellm.set_script({"replies": plan_updating("/calc.py", FIXED, "Fixed.")})
    command = actions[0].command
    assert command is not None
    await plain_client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command.command, arguments=command.arguments)
    )

    assert calc.read_text() == FIXED
    assert "/calc.py, line 5 (pyright): bad" in last_user_message(fakellm.requests[0])
    assert any("changed calc.py" in m.message for m in plain_client.messages)
