"""A disk that fills up during a plan: the user is told which store or file could not be
written and that nothing changed, in the same words by the LSP server, the ACP front end and
`agent-ls chat`; the workspace is exactly as before.

The full disk is real: a small tmpfs mounted for the test (root only; skipped elsewhere)
holds the checkpoint store, or the workspace itself. The plan creates a file of 600 KB of
text that does not compress, more than the tmpfs can take.
"""

from __future__ import annotations

import base64
import contextlib
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from acp import RequestError, text_block
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

from server.protocol import AGENT_CHAT
from tests.e2e.conversations import doc, fenced, seed_project, tree
from tests.e2e.test_acp import RecordingClient, acp_agent
from tests.fakellm import FakeLLM

AGENT_LS = str(Path(sys.executable).parent / "agent-ls")
BIG = base64.b64encode(random.Random(7).randbytes(450_000)).decode()  # ~600 KB
PLAN = [
    fenced(
        action="start_multi_file",
        plan={"description": "Add the data file", "files_to_modify": ["/data.txt"]},
        first_file={"action": "create_file", "file": {"path": "/data.txt", "content": BIG}},
        message="Writing the data...",
    ),
    doc(action="text_response", text_response="Done."),
]
FULL = (
    "could not be written: No space left on device; nothing was changed: the plan was rolled back"
)


@contextlib.contextmanager
def small_disk(where: Path, size: str = "256k") -> Iterator[Path]:
    """A tmpfs of `size` mounted at `where` for the block (skips the test without root)."""
    where.mkdir(parents=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(where)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"a tmpfs cannot be mounted here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def env_for(llm: FakeLLM, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")}
    env.update(AGENT_LS_BASE_URL=llm.base_url_openai, AGENT_LS_MODEL="fake")
    return {**env, **extra}


async def lsp_chat(root: Path, env: dict[str, str]) -> JsonRpcException:
    """One agent/chat through a real server; the error it answered with."""
    client = LanguageClient("disk-full-test", "0")
    client.feature("workspace/configuration")(lambda params: [None])
    client.feature("agent/chatProgress")(lambda params: None)
    await client.start_io(sys.executable, "-m", "server", env=env)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        )
    )
    client.initialized(types.InitializedParams())
    try:
        with pytest.raises(JsonRpcException) as failure:
            await client.protocol.send_request_async(AGENT_CHAT, {"message": "add data"})
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    return failure.value


async def test_a_full_checkpoint_store_is_named_by_every_front_end(tmp_path: Path) -> None:
    root = seed_project(tmp_path / "ws")
    before = tree(root)
    with small_disk(tmp_path / "small") as disk, FakeLLM({"replies": PLAN}) as llm:
        env = env_for(llm, AGENT_LS_CHECKPOINT_DIR=str(disk))
        lsp = await lsp_chat(root, env)
        assert tree(root) == before
        llm.set_script({"replies": PLAN})
        client = RecordingClient()
        async with acp_agent(llm, client, AGENT_LS_CHECKPOINT_DIR=str(disk)) as conn:
            session = await conn.new_session(cwd=str(root))
            with pytest.raises(RequestError) as acp:
                await conn.prompt(session_id=session.session_id, prompt=[text_block("add data")])
        assert tree(root) == before
        llm.set_script({"replies": PLAN})
        cli = subprocess.run(
            [AGENT_LS, "chat", "--workspace", str(root), "add data"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert tree(root) == before
    assert lsp.code == -32803
    assert cli.returncode == 1
    assert "Traceback" not in cli.stderr
    (line,) = [line for line in cli.stderr.splitlines() if line.startswith("agent-ls: the ")]
    words = line.removeprefix("agent-ls: ")
    assert words.startswith(f"the checkpoint store ({disk}/")
    assert words.endswith(FULL)
    # the same words everywhere (the store's folder is the same: one workspace)
    assert words in str(lsp)
    assert words in str(acp.value)


def test_a_full_workspace_disk_names_the_file(tmp_path: Path) -> None:
    with small_disk(tmp_path / "ws") as root, FakeLLM({"replies": PLAN}) as llm:
        seed_project(root)
        before = tree(root)
        cli = subprocess.run(
            [AGENT_LS, "chat", "--workspace", str(root), "add data"],
            env=env_for(llm),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert tree(root) == before
    assert cli.returncode == 1
    assert f"agent-ls: the file data.txt {FULL}" in cli.stderr.splitlines()
