"""`run_command` over LSP with a scripted model: the consent prompt (window/showMessageRequest
with Run / Always allow / Deny) answered as an editor would, the output and exit code reaching
the model, a denied line never run, `agent.undo` taking back what a command wrote, a timed-out
command's children gone, a 1 MB output capped, `commands: off`. Both editor profiles."""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

from server.protocol import AGENT_STATUS
from tests.e2e.conftest import as_dict, cancel, chat, command, start_chat
from tests.e2e.conversations import doc, tool
from tests.e2e.rawclient import RawClient
from tests.fakellm import FakeLLM, last_user_message


def answer(text: str) -> str:
    return doc(action="text_response", text_response=text)


class Prompts:
    """The editor's side of window/showMessageRequest: records each prompt, answers in turn."""

    def __init__(self, client: LanguageClient, answers: list[str | None]) -> None:
        self.answers = list(answers)
        self.seen: list[types.ShowMessageRequestParams] = []

        def on_request(params: types.ShowMessageRequestParams) -> Any:
            self.seen.append(params)
            title = self.answers.pop(0)
            return None if title is None else types.MessageActionItem(title=title)

        client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)(on_request)


def workspace(client: LanguageClient) -> Path:
    root: Path = client.workspace_path  # type: ignore[attr-defined]
    (root / "app.py").write_text("print('hi')\n")
    return root


async def test_deny_runs_nothing_and_tells_the_model(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    root = workspace(client)
    prompts = Prompts(client, ["Deny"])
    fakellm.set_script({"replies": [tool("run_command", command="touch made.txt"), answer("ok")]})
    await chat(client, "make a file")
    assert not (root / "made.txt").exists()
    (prompt,) = prompts.seen
    assert prompt.type == types.MessageType.Warning
    assert "touch made.txt" in prompt.message
    assert str(root) in prompt.message
    assert [a.title for a in prompt.actions or []] == ["Run", "Always allow", "Deny"]
    sent = last_user_message(fakellm.requests[-1])
    assert "not run" in sent
    assert "do not run the same command again" in sent


async def test_a_dismissed_prompt_is_deny(client: LanguageClient, fakellm: FakeLLM) -> None:
    root = workspace(client)
    Prompts(client, [None])
    fakellm.set_script({"replies": [tool("run_command", command="touch made.txt"), answer("ok")]})
    await chat(client, "make a file")
    assert not (root / "made.txt").exists()


async def test_a_prompt_answered_after_stop_runs_nothing_and_the_server_keeps_serving(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    """Stop while the prompt is open, then the editor answers it (a dialog still on screen):
    the command never runs, the stopped turn asks the model nothing more, the server lives."""
    root = workspace(client)
    shown, answer_now = asyncio.Event(), asyncio.Event()

    async def on_request(params: types.ShowMessageRequestParams) -> types.MessageActionItem:
        shown.set()
        await answer_now.wait()
        return types.MessageActionItem(title="Run")

    client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)(on_request)
    fakellm.set_script({"replies": [tool("run_command", command="touch late.txt"), answer("no")]})
    request = start_chat(client, "make a file", "chat-stopped-at-the-prompt")
    await shown.wait()
    cancel(client, "chat-stopped-at-the-prompt")
    with pytest.raises(JsonRpcException) as stopped:
        await request
    assert stopped.value.code == JsonRpcRequestCancelled.CODE
    answer_now.set()  # the answer comes after the server stopped waiting for it
    fakellm.set_script({"replies": [answer("still here")]})
    result = await chat(client, "are you there?")
    assert result["text"] == "still here"
    assert not (root / "late.txt").exists()
    assert len(fakellm.requests) == 2  # the stopped turn's one request, then this turn's


async def test_run_gives_the_model_output_and_exit_code_and_undo_takes_it_back(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    root = workspace(client)
    Prompts(client, ["Run"])
    line = "echo changed > app.py; echo new > made.txt; echo to-err >&2; exit 4"
    fakellm.set_script({"replies": [tool("run_command", command=line), answer("ok")]})
    result = await chat(client, "change things")
    sent = last_user_message(fakellm.requests[-1])
    assert "exit code 4" in sent
    assert "to-err" in sent
    assert (root / "app.py").read_text() == "changed\n"
    streamed = [p for p in client.chat.items if p["kind"] == "command_output"]  # type: ignore[attr-defined]
    assert "to-err" in "".join(p["data"]["text"] for p in streamed)
    await command(client, "agent.undo", {"sessionId": result["sessionId"]})
    assert (root / "app.py").read_text() == "print('hi')\n"
    assert not (root / "made.txt").exists()


async def test_always_allow_does_not_ask_again_in_the_session(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    root = workspace(client)
    prompts = Prompts(client, ["Always allow"])
    line = "echo x >> log.txt"
    fakellm.set_script(
        {
            "replies": [
                tool("run_command", command=line),
                answer("one"),
                tool("run_command", command=line),
                answer("two"),
            ]
        }
    )
    first = await chat(client, "once")
    await chat(client, "again", sessionId=first["sessionId"])
    assert len(prompts.seen) == 1
    assert (root / "log.txt").read_text() == "x\nx\n"


async def test_a_timed_out_command_and_its_children_are_gone(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    root = workspace(client)
    client.set_configuration({"commandAllowList": ["sh *"], "commandTimeout": 1}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    line = "sh -c 'trap \"\" TERM; sleep 300 & echo $! > child.pid; wait'"
    fakellm.set_script({"replies": [tool("run_command", command=line), answer("ok")]})
    await chat(client, "hang")
    sent = last_user_message(fakellm.requests[-1])
    assert "timed out after 1 s" in sent
    child = int((root / "child.pid").read_text())
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the command's child survived the time limit"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False


async def test_a_megabyte_of_output_reaches_the_model_as_head_and_tail(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    workspace(client)
    client.set_configuration({"commands": "allow"}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    line = "echo FIRST; yes filler-line | head -n 80000; echo LAST"
    fakellm.set_script({"replies": [tool("run_command", command=line), answer("ok")]})
    await chat(client, "loud")
    sent = last_user_message(fakellm.requests[-1])
    assert "FIRST" in sent
    assert "LAST" in sent
    assert "line(s)" in sent
    assert "left out" in sent
    assert len(sent) < 20_000


async def test_commands_off_offers_no_tool(client: LanguageClient, fakellm: FakeLLM) -> None:
    root = workspace(client)
    client.set_configuration({"commands": "off"}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    fakellm.set_script({"replies": [tool("run_command", command="touch made.txt"), answer("ok")]})
    await chat(client, "make a file")
    assert not (root / "made.txt").exists()
    assert "run_command" not in str(fakellm.requests[0].body)


def one_file_plan(description: str, path: str, content: str) -> str:
    return doc(
        action="start_multi_file",
        plan={"description": description, "files_to_modify": [path]},
        first_file={"action": "update_file", "file": {"path": path, "content": content}},
        message=description,
    )


CALC = "def add(a, b):\n    return a + b\n"
BROKEN = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return b + a\n"


async def test_the_edit_run_fix_loop_with_real_pytest_and_two_undos(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    """The model edits calc.py so a real pytest run fails, reads the failure, fixes it, runs
    it green; one undo takes back the fix, another the first edit."""
    root: Path = client.workspace_path  # type: ignore[attr-defined]
    (root / "calc.py").write_text(CALC)
    (root / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    (root / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    prompts = Prompts(client, ["Always allow"])
    line = f"{shlex.quote(sys.executable)} -m pytest -q test_calc.py"
    fakellm.set_script(
        {
            "replies": [
                one_file_plan("Refactor add", "/calc.py", BROKEN),
                tool("run_command", command=line),
                one_file_plan("Fix add", "/calc.py", FIXED),
                tool("run_command", command=line),
                answer("Fixed: the tests pass."),
            ]
        }
    )
    result = await chat(client, "refactor add and make sure the tests pass")
    after_first_run = last_user_message(fakellm.requests[2])
    after_second_run = last_user_message(fakellm.requests[4])
    assert "exit code 1" in after_first_run
    assert "1 failed" in after_first_run
    assert "assert -1 == 5" in after_first_run
    assert "exit code 0" in after_second_run
    assert "1 passed" in after_second_run
    assert len(prompts.seen) == 1  # "Always allow": the second run did not ask
    assert (root / "calc.py").read_text() == FIXED
    await command(client, "agent.undo", {"sessionId": result["sessionId"]})
    assert (root / "calc.py").read_text() == BROKEN
    await command(client, "agent.undo", {"sessionId": result["sessionId"]})
    assert (root / "calc.py").read_text() == CALC


async def test_the_provider_key_and_url_password_stay_out_of_the_command_environment(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    """The server started with the user's key variables: the command sees the user's own
    variables, not the key agent-ls reads (its variable, nor a copy of its value) nor a
    password in the baseUrl."""
    key = "sk-lsp-cmd-4f5e6d7c8b9a"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")}
    env |= {
        "MY_PROVIDER_KEY": key,
        "COPY_OF_KEY": key,
        "USERS_OWN_TOKEN": "kept-token-value",
    }
    env["AGENT_LS_BASE_URL"] = fakellm.base_url_openai.replace(
        "http://", "http://user:pw-in-url-77aa99@"
    )
    client = make_test_lsp_client()
    await client.start_io(sys.executable, "-m", "server", env=env)
    prompts = Prompts(client, ["Run"])
    root = tmp_path / "ws"
    root.mkdir()
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
                initialization_options={
                    "agentLs": {"model": "fake", "apiKeyEnv": "MY_PROVIDER_KEY"}
                },
            )
        )
        fakellm.set_script({"replies": [tool("run_command", command="env"), answer("ok")]})
        await chat(client, "show env")
    finally:
        await client.shutdown_session()
    assert len(prompts.seen) == 1
    sent = last_user_message(fakellm.requests[-1])
    assert "USERS_OWN_TOKEN=kept-token-value" in sent
    assert "MY_PROVIDER_KEY" not in sent
    assert "COPY_OF_KEY" not in sent
    assert key not in sent
    assert "pw-in-url-77aa99" not in sent


async def test_run_command_in_the_xml_and_native_tool_protocols(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    workspace(client)
    client.set_configuration({"commands": "allow", "toolProtocol": "xml"}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    xml_call = (
        '<tool_call>{"name": "run_command", "arguments": {"command": "echo via-xml"}}</tool_call>'
    )
    fakellm.set_script({"replies": [xml_call, answer("ok")]})
    await chat(client, "x")
    assert "via-xml" in last_user_message(fakellm.requests[-1])
    assert "run_command" in str(fakellm.requests[-1].body["messages"][0])  # described
    client.set_configuration({"commands": "allow", "toolProtocol": "native"}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    native = {"name": "run_command", "arguments": {"command": "echo via-native"}}
    fakellm.set_script({"replies": [{"tool_calls": [native]}, "ok"]})
    await chat(client, "n")
    offered = [t["function"]["name"] for t in fakellm.requests[-2].body["tools"]]
    assert "run_command" in offered
    assert "via-native" in str(fakellm.requests[-1].body["messages"])


async def test_a_server_stopped_mid_command_leaves_no_process_behind(
    fakellm: FakeLLM, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    line = "sleep 300 & echo $! > child.pid; wait"
    fakellm.set_script({"replies": [tool("run_command", command=line), answer("ok")]})
    client = await RawClient.start(cwd=root)
    settings = {"baseUrl": fakellm.base_url_openai, "model": "fake", "commands": "allow"}
    await client.initialize(root, settings)
    await client.send(
        {"jsonrpc": "2.0", "id": "c", "method": "agent/chat", "params": {"message": "go"}}
    )
    deadline = time.monotonic() + 30
    while not (root / "child.pid").exists() or not (root / "child.pid").read_text():
        assert time.monotonic() < deadline, "the command did not start"
        await asyncio.sleep(0.05)
    child = int((root / "child.pid").read_text())
    assert _alive(child)
    client.process.send_signal(signal.SIGTERM)
    await asyncio.wait_for(client.process.wait(), 30)
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not _alive(child), "the command outlived the server"


async def test_status_states_the_command_policy(client: LanguageClient, fakellm: FakeLLM) -> None:
    workspace(client)
    client.set_configuration(
        {"commands": "ask", "commandAllowList": ["pytest*"], "commandTimeout": 30},
        section="agentLs",
    )
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    report = as_dict(
        await client.protocol.send_request_async(AGENT_STATUS, {"check": False})  # type: ignore[no-untyped-call]
    )
    assert report["commands"] == {
        "mode": "ask",
        "allowList": ["pytest*"],
        "timeout": 30.0,
        "offered": True,
    }
