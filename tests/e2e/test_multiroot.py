"""A multi-root workspace through the real server: two folders, each a git repository.

The model sees every folder (paths qualified by folder name), reads and edits files of both
in one plan; one undo restores both; an ambiguous path is refused naming the folders; folders
added and removed by workspace/didChangeWorkspaceFolders are followed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from server.protocol import AGENT_STATUS
from tests.e2e.conftest import EDITORS, EditorModel, as_dict, chat, command, settings_for
from tests.e2e.conversations import FULL_CONVERSATION, NEW_MODULE, doc, fenced, tool, tree
from tests.fakellm import FakeLLM

FRONT = {"src/app.ts": "export const app = 1;\n", "README.md": "front\n"}
BACK = {"x.py": "X = 1\n", "lib/util.py": "def util():\n    return 1\n", "README.md": "back\n"}
BACK["old.txt"] = "obsolete\n"


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=u", "-c", "user.email=u@x", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def repo(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


def git_state(root: Path) -> tuple[str, ...]:
    return (
        git(root, "status", "--porcelain", "--untracked-files=all"),
        git(root, "rev-parse", "HEAD"),
        git(root, "ls-files", "-s"),
    )


def folder(path: Path) -> types.WorkspaceFolder:
    return types.WorkspaceFolder(uri=path.as_uri(), name=path.name)


@pytest.fixture
def folders(tmp_path: Path) -> list[Path]:
    front = tmp_path / "front"
    back = tmp_path / "back"
    front.mkdir()
    back.mkdir()
    return [repo(front, FRONT), repo(back, BACK)]


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "server"]),
    params=EDITORS,
)
async def multi(
    lsp_client: LanguageClient,
    request: pytest.FixtureRequest,
    fakellm: FakeLLM,
    folders: list[Path],
):
    """A client whose workspace has the folders `front` and `back` (rootUri: the first)."""
    editor = EditorModel(lsp_client)
    lsp_client.editor = editor  # type: ignore[attr-defined]

    def on_apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        return editor.on_apply_edit(params)

    lsp_client.feature(types.WORKSPACE_APPLY_EDIT)(on_apply_edit)
    lsp_client.feature("agent/chatProgress")(lambda params: None)
    lsp_client.feature("agent/indexUpdated")(lambda params: None)
    result = await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities(request.param),
            root_uri=folders[0].as_uri(),
            workspace_folders=[folder(path) for path in folders],
            initialization_options={"agentLs": settings_for(fakellm)},
        )
    )
    lsp_client.init_result = result  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def told(fakellm: FakeLLM, request: int) -> str:
    """What the server sent the model last in its `request`-th request (a tool result)."""
    content = fakellm.requests[request].body["messages"][-1]["content"]
    return content if isinstance(content, str) else str(content)


NEW_APP = "export const app = 2;\n"
NEW_X = "X = 2\n"

CROSS_FOLDER_PLAN = [
    tool("list_files"),
    tool("read_file", path="back/x.py"),
    tool("read_file", path="README.md"),
    fenced(
        action="start_multi_file",
        plan={
            "description": "Bump both folders",
            "files_to_modify": ["/front/src/app.ts", "x.py", "/back/old.txt"],
        },
        first_file={
            "action": "update_file",
            "file": {"path": "/front/src/app.ts", "content": NEW_APP},
        },
        message="front first",
    ),
    doc(
        action="continue_multi_file",
        next_file={
            "action": "update_file",
            "file": {"path": "x.py", "edits": [{"search": "X = 1", "replace": "X = 2"}]},
        },
        message="x.py is only in back",
    ),
    doc(
        action="continue_multi_file",
        next_file={"action": "delete_file", "file": {"path": "/back/old.txt"}},
        message="and the old file",
    ),
    doc(action="text_response", text_response="Both folders bumped."),
]


async def test_every_folder_is_reachable_and_one_undo_restores_a_plan_across_both(
    multi: LanguageClient, fakellm: FakeLLM, folders: list[Path]
) -> None:
    front, back = folders
    before = {front: tree(front), back: tree(back)}
    gits = {front: git_state(front), back: git_state(back)}
    editor: EditorModel = multi.editor  # type: ignore[attr-defined]
    x_uri = editor.open(back / "x.py")
    fakellm.set_script({"replies": CROSS_FOLDER_PLAN})

    result = await chat(multi, "bump both")

    system = fakellm.requests[0].body["messages"][0]["content"]
    assert '"front", "back"' in system  # the prompt names the folders
    listing = told(fakellm, 1)
    for path in ("/front/", "/front/src/app.ts", "/back/", "/back/x.py", "/back/lib/util.py"):
        assert f"\n{path}\n" in f"\n{listing}\n", path
    assert "X = 1" in told(fakellm, 2)
    ambiguous = told(fakellm, 3)
    assert "ambiguous" in ambiguous
    assert "/front/README.md" in ambiguous
    assert "/back/README.md" in ambiguous
    assert (front / "src/app.ts").read_text() == NEW_APP
    assert (back / "x.py").read_text() == NEW_X
    assert not (back / "old.txt").exists()
    assert editor.buffers[x_uri][1] == NEW_X  # the open buffer got the edit, by its own URI
    edited = {
        change.text_document.uri
        for params in editor.edits
        for change in params.edit.document_changes or []
        if isinstance(change, types.TextDocumentEdit)
    }
    assert edited == {x_uri}

    listed = await command(multi, "agent.checkpoints")
    assert len(listed) == 1
    assert listed[0]["id"] == result["checkpointId"]
    assert sorted(listed[0]["files"]) == ["back/old.txt", "back/x.py", "front/src/app.ts"]
    assert listed[0]["folders"] == ["front", "back"]
    status = as_dict(await multi.protocol.send_request_async(AGENT_STATUS, {"check": False}))
    assert [(f["name"], f["applied"], f["undone"]) for f in status["folders"]] == [
        ("front", 1, 0),
        ("back", 1, 0),
    ]

    undone = await command(multi, "agent.undo")
    assert undone["checkpointId"] == result["checkpointId"]
    assert sorted(f["path"] for f in undone["files"]) == sorted(listed[0]["files"])
    assert {front: tree(front), back: tree(back)} == before
    assert {front: git_state(front), back: git_state(back)} == gits
    assert editor.buffers[x_uri][1] == "X = 1\n"

    await command(multi, "agent.redo")
    assert (front / "src/app.ts").read_text() == NEW_APP
    assert (back / "x.py").read_text() == NEW_X
    assert not (back / "old.txt").exists()

    await command(multi, "agent.undo")
    with pytest.raises(JsonRpcException, match="nothing to undo"):
        await command(multi, "agent.undo")


async def test_undo_refuses_when_a_file_of_either_folder_changed_naming_it(
    multi: LanguageClient, fakellm: FakeLLM, folders: list[Path]
) -> None:
    front, back = folders
    fakellm.set_script({"replies": CROSS_FOLDER_PLAN})
    await chat(multi, "bump both")
    (back / "x.py").write_text("X = 'mine'\n")  # the user's own change after the plan

    with pytest.raises(JsonRpcException, match=r"back/x\.py") as refused:
        await command(multi, "agent.undo")
    assert "front/src/app.ts" not in str(refused.value)
    assert (front / "src/app.ts").read_text() == NEW_APP  # nothing undone in either folder

    await command(multi, "agent.undo", {"force": True})
    assert (front / "src/app.ts").read_text() == FRONT["src/app.ts"]
    assert (back / "x.py").read_text() == BACK["x.py"]


async def test_a_path_in_no_folder_is_refused_naming_the_folders(
    multi: LanguageClient, fakellm: FakeLLM, folders: list[Path]
) -> None:
    fakellm.set_script(
        {
            "replies": [
                tool("read_file", path="/nowhere/x.py"),
                doc(action="text_response", text_response="ok"),
            ]
        }
    )
    await chat(multi, "read it")
    refused = told(fakellm, 1)
    assert "/front" in refused
    assert "/back" in refused
    assert "nowhere/x.py" in refused


async def test_folders_added_and_removed_are_followed(
    client: LanguageClient, fakellm: FakeLLM, tmp_path: Path
) -> None:
    first: Path = client.workspace_path  # type: ignore[attr-defined]
    (first / "one.py").write_text("ONE = 1\n")
    other = tmp_path / "other"
    other.mkdir()
    (other / "two.py").write_text("TWO = 2\n")
    fakellm.set_script(
        {"rules": [{"match": "list please", "reply": tool("list_files")}], "default": "done"}
    )

    async def listing() -> str:
        fakellm.reset()
        await chat(client, "list please")
        return told(fakellm, 1)

    assert "/one.py" in (await listing()).splitlines()  # one folder: plain paths
    added = types.WorkspaceFoldersChangeEvent(added=[folder(other)], removed=[])
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(added))
    lines = (await listing()).splitlines()
    assert "/ws/one.py" in lines
    assert "/other/two.py" in lines
    removed = types.WorkspaceFoldersChangeEvent(added=[], removed=[folder(first)])
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(removed))
    lines = (await listing()).splitlines()
    assert lines[-1] == "/two.py"
    assert "/one.py" not in lines


async def test_a_removed_folder_is_closed_and_opens_afresh_when_it_comes_back(
    client: LanguageClient, fakellm: FakeLLM, review_project: Path
) -> None:
    """A folder that leaves the workspace has its state closed in one place: its staged plans
    go with it (they were computed against a workspace the user closed), its index stops;
    added again, it is opened afresh and works as before."""
    root = review_project
    before = tree(root)
    fakellm.set_script({"replies": FULL_CONVERSATION})
    stale = (await chat(client, "Add a greeting module"))["plan"]
    assert stale["state"] == "pending"
    ws = types.WorkspaceFolder(uri=root.as_uri(), name="ws")
    for event in (
        types.WorkspaceFoldersChangeEvent(added=[], removed=[ws]),
        types.WorkspaceFoldersChangeEvent(added=[ws], removed=[]),
    ):
        client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(event))

    with pytest.raises(JsonRpcException, match="unknown plan"):
        await command(client, "agent.accept", {"planId": stale["planId"]})
    assert tree(root) == before
    status = as_dict(await client.protocol.send_request_async(AGENT_STATUS, {"check": False}))
    assert status["index"]["state"] not in ("off", "unavailable"), status["index"]
    fakellm.reset()
    fakellm.set_script({"replies": FULL_CONVERSATION})
    plan = (await chat(client, "Add a greeting module"))["plan"]
    accepted = await command(client, "agent.accept", {"planId": plan["planId"]})
    assert accepted["checkpointId"]
    assert (root / "src/new.py").read_text() == NEW_MODULE
    await command(client, "agent.undo")
    assert tree(root) == before


async def test_the_server_advertises_workspace_folder_changes(multi: LanguageClient) -> None:
    result: types.InitializeResult = multi.init_result  # type: ignore[attr-defined]
    workspace = result.capabilities.workspace
    assert workspace is not None
    assert workspace.workspace_folders is not None
    assert workspace.workspace_folders.supported
    assert workspace.workspace_folders.change_notifications is True


async def test_review_mode_stages_across_folders_and_accept_is_one_undo_step(
    multi: LanguageClient, fakellm: FakeLLM, folders: list[Path]
) -> None:
    front, back = folders
    multi.set_configuration({"review": "on"}, section="agentLs")
    multi.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    before = {front: tree(front), back: tree(back)}
    fakellm.set_script({"replies": CROSS_FOLDER_PLAN})

    result = await chat(multi, "bump both")

    plan = result["plan"]
    assert [(f["path"], f["op"]) for f in plan["files"]] == [
        ("front/src/app.ts", "update"),
        ("back/x.py", "update"),
        ("back/old.txt", "delete"),
    ]
    assert {front: tree(front), back: tree(back)} == before  # staged only
    accepted = await command(multi, "agent.accept", {"planId": plan["planId"]})
    assert accepted["checkpointId"]
    assert (front / "src/app.ts").read_text() == NEW_APP
    assert (back / "x.py").read_text() == NEW_X
    assert not (back / "old.txt").exists()
    await command(multi, "agent.undo")
    assert {front: tree(front), back: tree(back)} == before


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "server"]),
)
async def twins(lsp_client: LanguageClient, fakellm: FakeLLM, tmp_path: Path):
    """Two folders both named `app` (in `client/` and `server/`)."""
    roots = [tmp_path / "client" / "app", tmp_path / "server" / "app"]
    for root, name in zip(roots, ("ui.ts", "api.py"), strict=True):
        root.mkdir(parents=True)
        (root / name).write_text(f"// {name}\n")
    lsp_client.feature("agent/chatProgress")(lambda params: None)
    lsp_client.feature("agent/indexUpdated")(lambda params: None)
    lsp_client.roots = roots  # type: ignore[attr-defined]
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("neovim"),
            workspace_folders=[types.WorkspaceFolder(uri=r.as_uri(), name=str(r)) for r in roots],
            initialization_options={"agentLs": settings_for(fakellm)},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_folders_with_the_same_name_are_told_apart_by_their_parents(
    twins: LanguageClient, fakellm: FakeLLM
) -> None:
    client_app, server_app = twins.roots  # type: ignore[attr-defined]
    fakellm.set_script(
        {
            "replies": [
                tool("list_files"),
                fenced(
                    action="start_multi_file",
                    plan={"description": "add", "files_to_modify": ["/app@server/new.py"]},
                    first_file={
                        "action": "create_file",
                        "file": {"path": "/app@server/new.py", "content": "NEW = 1\n"},
                    },
                ),
                doc(action="text_response", text_response="added"),
            ]
        }
    )
    await chat(twins, "add a module")
    lines = told(fakellm, 1).splitlines()
    assert "/app@client/ui.ts" in lines
    assert "/app@server/api.py" in lines
    assert (server_app / "new.py").read_text() == "NEW = 1\n"
    assert not (client_app / "new.py").exists()


async def test_search_files_skips_symlinks_out_of_each_folder(
    multi: LanguageClient, fakellm: FakeLLM, folders: list[Path], tmp_path: Path
) -> None:
    """A symlink in one folder to a secret outside, to a file of the other folder or to a
    secret inside is never read by search_files over every folder, nor over one."""
    front, back = folders
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "id_rsa").write_text("KEY TOKEN-private-1\n")
    (back / ".env").write_text("API=TOKEN-private-2\n")
    (front / "main.ts").write_text("// TOKEN-public\n")
    os.symlink(outside / "id_rsa", front / "notes.md")
    os.symlink(back / ".env", front / "env.txt")  # inside the workspace, outside its folder
    os.symlink(".env", back / "env.txt")
    fakellm.set_script(
        {
            "replies": [
                tool("search_files", pattern="TOKEN"),
                tool("search_files", pattern="TOKEN", path="/front"),
                doc(action="text_response", text_response="done"),
            ]
        }
    )
    await chat(multi, "find the tokens")
    every, one = told(fakellm, 1), told(fakellm, 2)
    for text in (every, one):
        assert "/front/main.ts:1: // TOKEN-public" in text
        assert "TOKEN-private" not in text
        assert "(skipped /front/notes.md: symlink 'notes.md' points outside the workspace)" in text
        assert "(skipped /front/env.txt: symlink 'env.txt' points outside the workspace)" in text
    assert "(skipped /back/env.txt: symlink 'env.txt' points to '.env': matches the secret" in every
