"""`run_command` in a multi-root workspace: `cwd` names the folder (default: the first); what
a command changes in a folder is undone in that folder, the user's git untouched."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.e2e.conftest import chat, command
from tests.e2e.conversations import doc, tool
from tests.e2e.test_multiroot import BACK, folders, git_state, multi  # noqa: F401  (fixtures)
from tests.fakellm import FakeLLM, last_user_message


def allow_commands(client: LanguageClient) -> None:
    client.set_configuration({"commands": "allow"}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))


async def test_cwd_names_the_folder_and_undo_restores_it(
    multi: LanguageClient,  # noqa: F811  (the fixture)
    fakellm: FakeLLM,
    folders: list[Path],  # noqa: F811
) -> None:
    front, back = folders
    allow_commands(multi)
    before = git_state(back)
    fakellm.set_script(
        {
            "replies": [
                tool("run_command", command="pwd; echo changed > x.py", cwd="/back"),
                tool("run_command", command="pwd"),
                tool("run_command", command="pwd", cwd="/nowhere"),
                doc(action="text_response", text_response="ok"),
            ]
        }
    )
    result = await chat(multi, "go")
    assert str(back) in last_user_message(fakellm.requests[1])
    assert str(front) in last_user_message(fakellm.requests[2])  # the first folder by default
    assert "/nowhere" in last_user_message(fakellm.requests[3])  # refused by name
    assert (back / "x.py").read_text() == "changed\n"
    await command(multi, "agent.undo", {"sessionId": result["sessionId"]})
    assert (back / "x.py").read_text() == BACK["x.py"]
    assert git_state(back) == before
