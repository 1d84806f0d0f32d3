"""Everything agent-ls writes outside the workspace is private (issue 21 item 2): after a
server run (index with its SQLite sidecars and vector graph, provider summaries cache,
conversation, checkpoint store) and after `agent-ls index`, every folder under the data folder
is 0700 and every file readable by its owner only; an index an older version left 0644 under
0755 folders is tightened when it is opened. Real processes under umask 022."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from actions.index.embeddings import dense_status
from server.protocol import AGENT_CHAT, AGENT_SESSIONS
from tests.e2e.conftest import settings_for
from tests.e2e.search_support import running_server, search, status
from tests.fakellm import FakeLLM

TABLE = "| code | window |\n|---|---|\n| Q1 | 02:00-04:00 |\n| Q2 | 03:00-05:00 |"
DOC = "# Operations\n\n## Windows\n\nWhen the hangar may be closed.\n\n" + TABLE + "\n"
UMASK_022 = ("sh", "-c", 'umask 022 && exec "$@"', "sh")  # the usual umask, whatever ours is


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "ops.md").write_text(DOC)
    (root / "notes.md").write_text("The kumquat is a small citrus.\n")
    return root


def modes(data: Path) -> dict[str, str]:
    """Every path under ``data`` (itself included) with its permission bits, in octal."""
    found = {".": oct(stat.S_IMODE(data.stat().st_mode))}
    for path in data.rglob("*"):
        found[path.relative_to(data).as_posix()] = oct(stat.S_IMODE(path.lstat().st_mode))
    return found


def readable_by_others(data: Path) -> dict[str, str]:
    """The paths under ``data`` that a folder is not 0700, or a file has group/other bits."""
    loose = {}
    for name, mode in modes(data).items():
        path = data / name
        bits = int(mode, 8)
        if (path.is_dir() and bits != 0o700) or bits & 0o077:
            loose[name] = mode
    return loose


def agent_ls(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*UMASK_022, sys.executable, "-m", "server", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
        check=False,
    )


async def test_a_server_session_leaves_only_private_files(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    cache = tmp_path / "cache"
    env = {"XDG_CACHE_HOME": str(cache), "AGENT_LS_ANN_MIN": "0"}
    with FakeLLM({"replies": ["The windows are in docs/ops.md."]}) as llm:
        async with running_server(root, settings_for(llm), env=env, prefix=UMASK_022) as (
            client,
            events,
        ):
            await events.wait_for(events.summarized("docs/ops.md"))
            assert await search(client, "kumquat")
            await client.protocol.send_request_async(AGENT_CHAT, {"message": "where?"})
            assert await client.protocol.send_request_async(AGENT_SESSIONS, {})  # saved
            await status(client)  # opens the checkpoint store too
            data = cache / "agent-ls"
            written = modes(data)
            assert {"index", "sessions", "checkpoints"} <= set(written)
            names = {Path(name).name for name in written}
            assert {"index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"} <= names
            assert "summaries.sqlite3" in names
            assert readable_by_others(data) == {}, written
        assert readable_by_others(data) == {}


def test_agent_ls_index_writes_private_files_and_tightens_an_older_index(
    tmp_path: Path,
) -> None:
    root = workspace(tmp_path)
    cache = tmp_path / "cache"
    env = {"XDG_CACHE_HOME": str(cache), "AGENT_LS_ANN_MIN": "0", "AGENT_LS_INDEX_SUMMARIES": "0"}
    built = agent_ls("index", "--workspace", str(root), "--json", "--wait-graph", env=env)
    assert built.returncode == 0, built.stderr
    data = cache / "agent-ls"
    if dense_status().enabled:  # the vector graph usearch wrote (AGENT_LS_ANN_MIN=0)
        assert any(name.endswith(".usearch") for name in modes(data)), modes(data)
    assert readable_by_others(data) == {}, modes(data)
    for path in [data, *data.rglob("*")]:  # as an older version left it
        path.chmod(0o755 if path.is_dir() else 0o644)
    assert readable_by_others(data)
    found = agent_ls("search", "--workspace", str(root), "--json", "kumquat", env=env)
    assert found.returncode == 0, found.stderr
    assert '"notes.md"' in found.stdout
    assert readable_by_others(data) == {}, modes(data)
