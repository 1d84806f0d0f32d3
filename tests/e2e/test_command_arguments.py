"""Bad arguments to agent-ls' requests and commands, through the real server: each gets a
precise JSON-RPC error (MethodNotFound for an unknown method, InvalidParams naming the field
and the type expected), never a Python exception's text nor a silent coercion; and every
review command takes a file in the same forms (``src/a.py``, ``/src/a.py``, absolute)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from tests.e2e.conftest import chat, command
from tests.e2e.conversations import FULL_CONVERSATION, NEW_MODULE, doc
from tests.e2e.rawclient import RawClient
from tests.fakellm import FakeLLM

METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
PYTHON_TEXT = re.compile(r"TypeError|ValueError|KeyError|object is not|__init__|positional")


def execute(command: str, *arguments: Any) -> dict[str, Any]:
    return {"command": command, "arguments": list(arguments)}


BAD_INPUTS = [
    # (method, params, code, what the message must say)
    ("foo/bar", None, METHOD_NOT_FOUND, "foo/bar"),
    ("foo/bar", {}, METHOD_NOT_FOUND, "foo/bar"),
    (
        "workspace/executeCommand",
        execute("agent.accept", 5),
        INVALID_PARAMS,
        "agent.accept: expected an object {planId, files?}, got a number",
    ),
    (
        "workspace/executeCommand",
        execute("agent.accept", {"planId": "p", "files": "a.py"}),
        INVALID_PARAMS,
        "expected a list of strings, got a string @ $.files",
    ),
    (
        "workspace/executeCommand",
        execute("agent.reject", {"planId": "p", "files": [1]}),
        INVALID_PARAMS,
        "expected a string @ $.files[0]",
    ),
    (
        "workspace/executeCommand",
        execute("agent.accept"),
        INVALID_PARAMS,
        "required field missing @ $.planId",
    ),
    (
        "workspace/executeCommand",
        execute("agent.stagedContent", {"planId": 7, "path": "a.py"}),
        INVALID_PARAMS,
        "expected a string @ $.planId",
    ),
    (
        "workspace/executeCommand",
        execute("agent.undo", "x"),
        INVALID_PARAMS,
        "agent.undo: expected an object {force?}, got a string",
    ),
    (
        "workspace/executeCommand",
        execute("agent.redo", {"force": "yes"}),
        INVALID_PARAMS,
        "expected true or false, got a string @ $.force",
    ),
    (
        "workspace/executeCommand",
        execute("agent.undo", {}, {}),
        INVALID_PARAMS,
        "agent.undo: expected one argument",
    ),
    (
        "workspace/executeCommand",
        execute("agent.reindex", {"token": {}}),
        INVALID_PARAMS,
        "expected an integer or a string or null @ $.token",
    ),
    (
        "workspace/executeCommand",
        execute("agent.chat", "hi"),
        INVALID_PARAMS,
        "agent.chat: expected an object {message, sessionId?",
    ),
    ("agent/search", {"query": "x", "k": "5"}, INVALID_PARAMS, "expected an integer"),
    ("agent/chat", {"message": ["hi"]}, INVALID_PARAMS, "expected a string @ $.message"),
    ("agent/sessions", 5, INVALID_PARAMS, "not a number"),
]


@pytest.fixture
async def raw(tmp_path: Path) -> AsyncIterator[RawClient]:
    (tmp_path / "a.py").write_text("x = 1\n")
    client = await RawClient.start("serve", cwd=tmp_path)
    await client.initialize(tmp_path)
    yield client
    await client.close()


@pytest.mark.parametrize(("method", "params", "code", "says"), BAD_INPUTS)
async def test_a_bad_input_gets_a_precise_json_rpc_error(
    raw: RawClient, method: str, params: Any, code: int, says: str
) -> None:
    answer = await raw.request(method, params)
    error = answer.get("error")
    assert error is not None, answer
    assert error["code"] == code, error
    assert says in error["message"], error
    assert not PYTHON_TEXT.search(error["message"]), error


async def test_review_commands_take_a_file_in_the_same_forms(
    client: LanguageClient, fakellm: FakeLLM, review_project: Path
) -> None:
    fakellm.set_script(
        {"replies": [*FULL_CONVERSATION, doc(action="text_response", text_response="ok")]}
    )
    plan_id = (await chat(client, "Add a greeting module"))["plan"]["planId"]
    absolute = str(review_project / "src/new.py")
    forms = ["src/new.py", "/src/new.py", "./src/new.py", "src\\new.py", absolute]
    for form in forms:
        staged = await command(client, "agent.stagedContent", {"planId": plan_id, "path": form})
        assert (staged["path"], staged["content"]) == ("src/new.py", NEW_MODULE), form
    with pytest.raises(JsonRpcInvalidParams, match=r"expected a list of strings"):
        await command(client, "agent.accept", {"planId": plan_id, "files": "/src/new.py"})
    accepted = await command(client, "agent.accept", {"planId": plan_id, "files": ["/src/new.py"]})
    states = {f["path"]: f["state"] for f in accepted["files"]}
    assert states["src/new.py"] == "accepted"
    assert (review_project / "src" / "new.py").read_text() == NEW_MODULE
