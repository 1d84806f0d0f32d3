"""MCP over LSP against a real server nobody on the team wrote: `mcp-server-git` (PyPI) over
stdio on a temporary repository. The scripted model calls its status and log tools; their
output reaches the model. Consent: Deny, Run, Always allow (window/showMessageRequest naming
the server, the tool and the arguments). A tool argument refused by the input schema."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.e2e.conftest import chat
from tests.e2e.conversations import doc, tool
from tests.e2e.test_commands_lsp import Prompts
from tests.fakellm import FakeLLM, last_user_message


def answer(text: str) -> str:
    return doc(action="text_response", text_response=text)


def git_repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "T")
    (repo / "a.txt").write_text("one\n")
    git("add", "a.txt")
    git("commit", "-q", "-m", "the first commit of the test")
    (repo / "b.txt").write_text("untracked\n")
    return repo


def use_git_server(client: LanguageClient, repo: Path, **entry: Any) -> None:
    server = {
        "command": sys.executable,
        "args": ["-m", "mcp_server_git", "--repository", str(repo)],
    }
    client.set_configuration({"mcpServers": {"git": server | entry}}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))


async def test_the_model_calls_git_status_and_log_and_reads_their_output(
    client: LanguageClient, fakellm: FakeLLM, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path)
    use_git_server(client, repo, allow="*")
    fakellm.set_script(
        {
            "replies": [
                tool("mcp__git__git_status", repo_path=str(repo)),
                tool("mcp__git__git_log", repo_path=str(repo)),
                answer("done"),
            ]
        }
    )
    await chat(client, "what is the state of the repository?")
    after_status = last_user_message(fakellm.requests[1])
    assert "b.txt" in after_status  # the untracked file, as git status shows it
    after_log = last_user_message(fakellm.requests[2])
    assert "the first commit of the test" in after_log
    offered = str(fakellm.requests[0])
    assert "mcp__git__git_log" in offered


async def test_consent_deny_run_and_always_allow(
    client: LanguageClient, fakellm: FakeLLM, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path)
    use_git_server(client, repo)
    prompts = Prompts(client, ["Deny", "Run", "Always allow"])
    status = tool("mcp__git__git_status", repo_path=str(repo))
    fakellm.set_script({"replies": [status, status, status, status, answer("done")]})
    await chat(client, "status, four times")
    assert len(prompts.seen) == 3  # the fourth call was allowed always
    first = prompts.seen[0]
    assert first.type == types.MessageType.Warning
    assert "git_status" in first.message
    assert "MCP server git" in first.message
    assert str(repo) in first.message  # the arguments
    assert [a.title for a in first.actions or []] == ["Run", "Always allow", "Deny"]
    denied = last_user_message(fakellm.requests[1])
    assert "the user denied it" in denied
    assert "b.txt" not in denied
    for ran in fakellm.requests[2:5]:
        assert "b.txt" in last_user_message(ran)


async def test_an_argument_refused_by_the_schema_reaches_the_model(
    client: LanguageClient, fakellm: FakeLLM, tmp_path: Path
) -> None:
    repo = git_repo(tmp_path)
    use_git_server(client, repo, allow="*")
    fakellm.set_script(
        {"replies": [tool("mcp__git__git_log", repo_path=str(repo), max_count="ten"), answer("ok")]}
    )
    await chat(client, "log")
    sent = last_user_message(fakellm.requests[1])
    assert "max_count" in sent
    assert "integer" in sent


async def test_review_mode_changes_nothing_for_a_tool_call(
    client: LanguageClient, fakellm: FakeLLM, tmp_path: Path
) -> None:
    """Review holds edits for the user's decision; an MCP call is asked and run as without it."""
    repo = git_repo(tmp_path)
    server = {
        "command": sys.executable,
        "args": ["-m", "mcp_server_git", "--repository", str(repo)],
    }
    client.set_configuration({"review": "on", "mcpServers": {"git": server}}, section="agentLs")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    prompts = Prompts(client, ["Run"])
    fakellm.set_script(
        {"replies": [tool("mcp__git__git_status", repo_path=str(repo)), answer("done")]}
    )
    result = await chat(client, "what is the state of the repository?")
    assert result["text"] == "done"
    (prompt,) = prompts.seen
    assert "git_status" in prompt.message
    assert "b.txt" in last_user_message(fakellm.requests[1])  # run, its output sent back
