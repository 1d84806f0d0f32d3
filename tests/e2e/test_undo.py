"""Undo and redo of a whole plan through the LSP and the terminal, in a real git repo."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.e2e.conftest import chat
from tests.e2e.conversations import FULL_CONVERSATION, NEW_APP, NEW_MODULE, seed_project, tree
from tests.fakellm import FakeLLM

AGENT_LS = str(Path(sys.executable).parent / "agent-ls")


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def git_state(root: Path) -> tuple[str, ...]:
    return (
        git(root, "status", "--porcelain", "--untracked-files=all"),
        git(root, "rev-parse", "HEAD"),
        git(root, "ls-files", "-s"),
        git(root, "stash", "list"),
        git(root, "for-each-ref"),
    )


@pytest.fixture
def repo(client: LanguageClient) -> Path:
    root: Path = client.workspace_path  # type: ignore[attr-defined]
    seed_project(root)
    git(root, "init", "-q")
    git(root, "-c", "user.name=u", "-c", "user.email=u@x", "add", "-A")
    git(root, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "base")
    (root / "src" / "util.py").write_text("def helper():\n    return 2\n")
    git(root, "add", "src/util.py")  # a staged user change
    (root / "notes.md").write_text("my untracked notes\n")  # an untracked user file
    return root


async def command(client: LanguageClient, name: str, *args: object) -> object:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=list(args))
    )


async def test_undo_and_redo_a_plan_exactly_without_touching_the_users_git(
    client: LanguageClient, fakellm: FakeLLM, repo: Path
) -> None:
    before_tree, before_git = tree(repo), git_state(repo)
    app_uri = client.editor.open(repo / "src" / "app.py")  # type: ignore[attr-defined]
    fakellm.set_script({"replies": FULL_CONVERSATION})
    result = await chat(client, "Add a greeting module")
    after_tree = tree(repo)
    assert after_tree["src/new.py"] == NEW_MODULE

    listed = await command(client, "agent.checkpoints")
    assert listed[0]["id"] == result["checkpointId"]
    assert listed[0]["description"] == "Add a greeting module and use it"
    assert sorted(listed[0]["files"]) == ["old.txt", "src/app.py", "src/new.py"]

    undone = await command(client, "agent.undo")
    assert undone["checkpointId"] == result["checkpointId"]
    assert tree(repo) == before_tree
    assert git_state(repo) == before_git
    assert client.editor.buffers[app_uri][1] == "print('v1')\n"  # type: ignore[attr-defined]

    await command(client, "agent.redo")
    assert tree(repo) == after_tree
    assert client.editor.buffers[app_uri][1] == NEW_APP  # type: ignore[attr-defined]

    await command(client, "agent.undo")
    assert tree(repo) == before_tree
    assert git_state(repo) == before_git
    assert not any(p.name == ".git_disabled" for p in repo.rglob("*"))


async def test_undo_refuses_to_clobber_user_changes_unless_forced(
    client: LanguageClient, fakellm: FakeLLM, repo: Path
) -> None:
    fakellm.set_script({"replies": FULL_CONVERSATION})
    await chat(client, "Add a greeting module")
    (repo / "src" / "app.py").write_text("print('the user edited this')\n")

    with pytest.raises(JsonRpcException) as refused:
        await command(client, "agent.undo")
    assert "src/app.py" in str(refused.value)
    assert "force" in str(refused.value)
    assert (repo / "src" / "new.py").exists()

    await command(client, "agent.undo", {"force": True})
    assert (repo / "src" / "app.py").read_text() == "print('v1')\n"
    assert not (repo / "src" / "new.py").exists()


async def test_plan_applied_in_the_editor_is_undone_from_the_terminal(
    client: LanguageClient, fakellm: FakeLLM, repo: Path
) -> None:
    before_tree = tree(repo)
    fakellm.set_script({"replies": FULL_CONVERSATION})
    await chat(client, "Add a greeting module")
    after_tree = tree(repo)

    done = subprocess.run(
        [AGENT_LS, "undo", "--workspace", str(repo)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert tree(repo) == before_tree

    await command(client, "agent.redo")  # and back from the editor
    assert tree(repo) == after_tree


async def test_nothing_to_undo_is_a_clear_error(client: LanguageClient) -> None:
    with pytest.raises(JsonRpcException) as failure:
        await command(client, "agent.undo")
    assert "nothing to undo" in str(failure.value).lower()


def write_from_another_process(path: Path, text: str) -> None:
    """What a formatter, `git checkout` or a second editor does: a write the editor's
    buffer does not see (Neovim does not reload a changed file by default)."""
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, pathlib; pathlib.Path(sys.argv[1]).write_text(sys.argv[2])",
            str(path),
            text,
        ],
        check=True,
    )


async def test_undo_refuses_a_file_changed_on_disk_while_open_and_saved_in_the_editor(
    client: LanguageClient, fakellm: FakeLLM, repo: Path
) -> None:
    app = repo / "src" / "app.py"
    app_uri = client.editor.open(app)  # type: ignore[attr-defined]
    fakellm.set_script({"replies": FULL_CONVERSATION})
    await chat(client, "Add a greeting module")
    assert client.editor.buffers[app_uri][1] == NEW_APP  # type: ignore[attr-defined]
    write_from_another_process(app, "print('written by another tool')\n")

    with pytest.raises(JsonRpcException) as refused:
        await command(client, "agent.undo")
    assert "src/app.py (on disk)" in str(refused.value)
    assert "force" in str(refused.value)
    assert app.read_text() == "print('written by another tool')\n"  # nothing reverted
    assert (repo / "src" / "new.py").read_text() == NEW_MODULE

    undone = await command(client, "agent.undo", {"force": True})
    assert undone["overridden"] == ["src/app.py"]  # type: ignore[index]
    assert app.read_text() == "print('v1')\n"
    assert not (repo / "src" / "new.py").exists()
    assert client.editor.buffers[app_uri][1] == "print('v1')\n"  # type: ignore[attr-defined]


async def test_undo_refuses_a_file_changed_only_in_the_editor_buffer(
    client: LanguageClient, fakellm: FakeLLM, repo: Path
) -> None:
    app = repo / "src" / "app.py"
    app_uri = client.editor.open(app)  # type: ignore[attr-defined]
    fakellm.set_script({"replies": FULL_CONVERSATION})
    await chat(client, "Add a greeting module")
    typed = NEW_APP + "# typing, not saved\n"
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=app_uri, version=10),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=typed)],
        )
    )
    with pytest.raises(JsonRpcException) as refused:
        await command(client, "agent.undo")
    assert "src/app.py (in the editor)" in str(refused.value)
    assert app.read_text() == NEW_APP


async def test_a_quick_fix_is_not_undone_over_a_change_made_on_disk(
    client: LanguageClient, fakellm: FakeLLM, repo: Path
) -> None:
    from tests.e2e.test_code_actions import actions_for, diagnostic, plan_updating, rng

    app = repo / "src" / "app.py"
    uri = client.editor.open(app)  # type: ignore[attr-defined]
    (action,) = await actions_for(client, app, rng(0, 0, 0, 0), [diagnostic(0, "say v2")])
    fakellm.set_script({"replies": plan_updating("/src/app.py", "print('v2')\n", "fixed")})
    await client.code_action_resolve_async(action)
    assert client.editor.buffers[uri][1] == "print('v2')\n"  # type: ignore[attr-defined]
    write_from_another_process(app, "print('formatter')\n")

    with pytest.raises(JsonRpcException) as refused:
        await command(client, "agent.undo")
    assert "src/app.py (on disk)" in str(refused.value)
    assert app.read_text() == "print('formatter')\n"
    await command(client, "agent.undo", {"force": True})
    assert app.read_text() == "print('v1')\n"
