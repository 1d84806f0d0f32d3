"""Secret files (.env, keys, cloud credentials) through the real server and the fake LLM.

They are refused for every operation — read, list, create, update, delete — with the reason
sent to the model, unless the user allow-lists them (agentLs.allowSecretFiles); a refused
file never reaches the disk nor the checkpoint store.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from server.workspace import open_store
from tests.e2e.conftest import chat
from tests.e2e.conversations import doc, seed_project, tool, tree
from tests.fakellm import FakeLLM

SECRETS = {
    ".env": "API_KEY=sk-live-1\n",
    "id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\n",
    ".ssh/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY-----\n",
    ".aws/config": "[default]\nregion = eu-west-1\n",
    "certs/server.pem": "-----BEGIN CERTIFICATE-----\n",
    "credentials.json": '{"token": "t"}\n',
}


@pytest.fixture
def project(client: LanguageClient) -> Path:
    root: Path = client.workspace_path  # type: ignore[attr-defined]
    seed_project(root)
    for relative, text in SECRETS.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


def start_plan(path: str, action: str = "update_file", content: str | None = "x\n") -> str:
    file: dict[str, str] = {"path": path}
    if content is not None and action != "delete_file":
        file["content"] = content
    first = action if action != "delete_file" else "update_file"
    return doc(
        action="start_multi_file",
        plan={"description": f"{action} {path}", "files_to_modify": [path]},
        first_file={"action": first, "file": file},
    )


def next_file(path: str, action: str) -> str:
    file: dict[str, str] = {"path": path}
    if action != "delete_file":
        file["content"] = "OVERWRITTEN\n"
    return doc(action="continue_multi_file", next_file={"action": action, "file": file})


def store_blobs(root: Path) -> bytes:
    """Every object of the checkpoint store, decompressed (read by git itself), and every
    other file of the store as it is on disk."""
    store = open_store(root)
    objects = subprocess.run(
        [
            "git",
            "--git-dir",
            str(store.objects.git_dir),
            "cat-file",
            "--batch-all-objects",
            "--batch",
        ],
        capture_output=True,
        check=True,
    ).stdout
    files = b"".join(p.read_bytes() for p in store.store_dir.rglob("*") if p.is_file())
    return objects + files


@pytest.mark.parametrize(
    ("path", "action"),
    [
        (".env", "update_file"),
        ("id_rsa", "delete_file"),
        (".ssh/id_ed25519_new", "create_file"),
        (".aws/config", "delete_file"),
        ("deploy/new.pem", "create_file"),
        ("credentials.json", "update_file"),
    ],
)
async def test_every_write_to_a_secret_file_is_refused_and_the_model_told(
    client: LanguageClient, fakellm: FakeLLM, project: Path, path: str, action: str
) -> None:
    before = tree(project)
    fakellm.set_script(
        {
            "replies": [
                # A plan naming the secret file is refused before anything is written...
                start_plan(path, "create_file" if action == "create_file" else "update_file"),
                # ...and so is a secret file slipped into a plan of ordinary files.
                start_plan("/src/app.py", content="print('v2')\n"),
                next_file(path, action),
                doc(action="text_response", text_response="I left the secret alone."),
            ]
        }
    )
    result = await chat(client, f"{action} {path}")
    after = tree(project)
    assert after.pop("src/app.py") == "print('v2')\n"
    before.pop("src/app.py")
    assert after == before  # every secret file untouched, none created
    told = [r.body["messages"][-1]["content"] for r in fakellm.requests[1:]]
    assert "secret deny list" in told[0]
    assert "refused" in told[0].lower()
    assert "secret deny list" in told[2]
    assert path in told[2]
    assert result["plan"]["applied"] == ["src/app.py"]
    blobs = store_blobs(project)
    assert b"print('v1')" in blobs  # the ordinary file's pre-image is there...
    for text in SECRETS.values():
        assert text.encode() not in blobs  # ...no secret's content is


async def test_secret_files_cannot_be_read_nor_listed(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    fakellm.set_script(
        {
            "replies": [
                tool("read_file", paths=["/.env", "/.aws/config", "/src/app.py"]),
                tool("list_files"),
                tool("list_files", path="/.ssh"),
                doc(action="text_response", text_response="ok"),
            ]
        }
    )
    await chat(client, "show me the keys")
    read, listed, folder = (r.body["messages"][-1]["content"] for r in fakellm.requests[1:4])
    assert "print('v1')" in read
    assert "sk-live-1" not in read
    assert "region" not in read
    assert read.count("secret deny list") == 2
    for secret in SECRETS:
        assert f"/{secret}\n" not in listed + "\n"
    assert "/src/app.py" in listed
    assert f"({len(SECRETS)} secret file(s) not listed" in listed
    assert "secret deny list" in folder
    assert "id_ed25519" not in folder


async def test_allow_listed_secret_files_can_be_written_and_undone(
    client: LanguageClient, fakellm: FakeLLM, project: Path
) -> None:
    client.set_configuration({"allowSecretFiles": [".env"]}, section="agentLs")
    fakellm.set_script(
        {
            "replies": [
                start_plan("/.env", content="API_KEY=sk-test\n"),
                next_file("id_rsa", "delete_file"),
                doc(action="text_response", text_response="done"),
            ]
        }
    )
    result = await chat(client, "point .env at the test key")
    assert (project / ".env").read_text() == "API_KEY=sk-test\n"
    assert (project / "id_rsa").exists()  # not on the allow-list
    assert result["plan"]["applied"] == [".env"]
    assert "secret deny list" in fakellm.requests[2].body["messages"][-1]["content"]
    await client.workspace_execute_command_async(types.ExecuteCommandParams(command="agent.undo"))
    assert (project / ".env").read_text() == SECRETS[".env"]
