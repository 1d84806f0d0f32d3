"""SIGTERM or SIGINT mid-plan: the server rolls the plan back at once and exits cleanly.

The fake LLM stalls after the plan's first file was written, so the signal lands while the
plan is half applied; the workspace must be as before the turn when the process is gone.
"""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

import pytest

from tests.e2e.conversations import doc, fenced
from tests.e2e.rawclient import RawClient
from tests.fakellm import FakeLLM

ORIGINAL = "def keep():\n    return 1\n"


def plan_script() -> dict[str, object]:
    first = fenced(
        action="start_multi_file",
        plan={"description": "Touch two files", "files_to_modify": ["keep.py", "new.py"]},
        first_file={
            "action": "update_file",
            "file": {"path": "keep.py", "content": "def keep():\n    return 2\n"},
        },
        message="Updating keep.py",
    )
    second = doc(
        action="continue_multi_file",
        next_file={"action": "create_file", "file": {"path": "new.py", "content": "x = 1\n"}},
        message="Creating new.py",
    )
    return {"replies": [first, {"content": second, "first_byte_delay_ms": 20000}]}


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_mid_plan_restores_the_workspace_and_exits(
    signum: signal.Signals, fakellm: FakeLLM, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "keep.py").write_text(ORIGINAL)
    fakellm.set_script(plan_script())
    client = await RawClient.start(cwd=workspace)
    await client.initialize(workspace, {"baseUrl": fakellm.base_url_openai, "model": "fake"})
    await client.send(
        {"jsonrpc": "2.0", "id": "plan", "method": "agent/chat", "params": {"message": "go"}}
    )
    async with client.changed:
        await asyncio.wait_for(
            client.changed.wait_for(
                lambda: any(
                    n["params"]["kind"] == "file_applied"
                    for n in client.notifications
                    if n["method"] == "agent/chatProgress"
                )
            ),
            30,
        )
    assert (workspace / "keep.py").read_text() != ORIGINAL  # the plan is half applied

    client.process.send_signal(signum)
    code = await asyncio.wait_for(client.process.wait(), 30)

    assert code == 128 + signum
    assert (workspace / "keep.py").read_text() == ORIGINAL
    assert not (workspace / "new.py").exists()
    stderr = await client.stderr()
    assert f"stopped by {signum.name}" in stderr
    assert "Traceback" not in stderr
    rolled_back = [
        n["params"]
        for n in client.notifications
        if n["method"] == "agent/chatProgress" and n["params"]["kind"] == "error"
    ]
    assert any("rolled back" in json.dumps(p) for p in rolled_back)
