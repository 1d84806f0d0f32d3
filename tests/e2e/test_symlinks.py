"""Symlinks a repository can ship (git checks them out) through the real server and the fake
LLM: `search_files`, `list_files` and `read_file` never read through a symlink to outside the
workspace, into .git or to a secret file; the tool result says it was skipped, and neither the
model nor the saved session ever gets the target's text."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from pytest_lsp import LanguageClient

from server.protocol import AGENT_SESSIONS
from tests.e2e.conftest import chat
from tests.e2e.conversations import doc, tool
from tests.fakellm import FakeLLM

PUBLIC = "TOKEN-public-42"
PRIVATE = "TOKEN-private-9f3"  # in every file a symlink points at


def hostile_links(root: Path, outside: Path) -> None:
    """A project whose symlinks point at secrets and out of the workspace, committed."""
    outside.mkdir(exist_ok=True)
    (outside / "id_rsa").write_text(f"-----BEGIN KEY----- {PRIVATE}\n")
    (outside / "x").write_text(f"outside {PRIVATE}\n")
    (root / "app.py").write_text(f"KEY = '{PRIVATE[:6]}'  # {PUBLIC}\n")
    (root / ".env").write_text(f"API={PRIVATE}\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".git" / "config").write_text(f"# {PRIVATE}\n", encoding="utf-8")
    os.symlink(outside / "id_rsa", root / "notes.md")
    os.symlink(os.path.relpath(outside / "x", root), root / "link.txt")
    os.symlink(".env", root / "env.txt")
    os.symlink(".git/config", root / "gitconfig.txt")
    os.symlink(outside, root / "outdir")
    os.symlink(".", root / "loop")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)


def saved_sessions(cache: Path) -> str:
    folder = cache / "agent-ls" / "sessions"
    return "".join(p.read_text() for p in folder.rglob("*.json"))


async def test_search_files_skips_symlinks_to_secrets_and_outside(
    client: LanguageClient, fakellm: FakeLLM, tmp_path: Path, private_cache: Path
) -> None:
    root: Path = client.workspace_path  # type: ignore[attr-defined]
    hostile_links(root, tmp_path / "outside")
    fakellm.set_script(
        {
            "replies": [
                tool("search_files", pattern="TOKEN"),
                tool("search_files", pattern="TOKEN", path="/loop"),
                tool("list_files"),
                tool("read_file", paths=["/notes.md", "/env.txt", "/gitconfig.txt"]),
                doc(action="text_response", text_response="done"),
            ]
        }
    )
    await chat(client, "find the tokens")
    search, looped, listed, read = (
        r.body["messages"][-1]["content"] for r in fakellm.requests[1:5]
    )
    assert PUBLIC in search
    assert looped.startswith("Result of search_files")  # the loop ends, never followed round
    for text in (search, looped, listed, read):
        assert PRIVATE not in text
    for name in ("notes.md", "link.txt", "outdir"):
        assert f"(skipped /{name}: symlink '{name}' points outside the workspace)" in search
    assert "(skipped /env.txt: symlink 'env.txt' points to '.env': matches the secret" in search
    assert "(skipped /gitconfig.txt: symlink 'gitconfig.txt' points to '.git/config'" in search
    assert "/notes.md\n" not in listed
    assert "(5 symlink(s) not listed" in listed
    assert "symlink 'notes.md' points outside the workspace" in read
    assert "symlink 'env.txt' points to '.env'" in read
    assert "symlink 'gitconfig.txt' points to '.git/config': the .git folder" in read
    await client.protocol.send_request_async(AGENT_SESSIONS, {})  # after the queued saves
    stored = saved_sessions(private_cache)
    assert PUBLIC in stored
    assert PRIVATE not in stored
