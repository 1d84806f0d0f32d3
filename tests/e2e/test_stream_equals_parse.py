"""The server runs what ``agent-ls parse`` shows (issue 21 item 9): a reply streamed in
16-character deltas is read as the whole reply is, also where the repair path decides."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pytest_lsp import LanguageClient

from tests.e2e.conftest import chat
from tests.e2e.conversations import doc, seed_project
from tests.fakellm import FakeLLM

AGENT_LS = str(Path(sys.executable).parent / "agent-ls")

# a tool call in an untagged fence whose arguments hold a key with a raw newline: the
# fence's lossless reading takes it; the stream's tolerant reading rejected it (text, and
# no tool ran). The server now runs it, and feeds back read_file's own answer to the key.
REPLY = '~~~{"name": "read_file", "arguments": {"path": "/src/app.py", "\n": 1}}\n~~~'


async def test_a_streamed_tool_call_runs_as_parse_shows_it(
    client: LanguageClient, fakellm: FakeLLM, tmp_path: Path
) -> None:
    reply_file = tmp_path / "reply.txt"
    reply_file.write_text(REPLY, encoding="utf-8")
    shown = subprocess.run(
        [AGENT_LS, "parse", str(reply_file)], capture_output=True, text=True, check=True
    )
    kinds = [json.loads(line)["type"] for line in shown.stdout.splitlines()]
    assert "tool_call" in kinds

    seed_project(client.workspace_path)  # type: ignore[attr-defined]
    fakellm.set_script(
        {
            "replies": [
                {"content": REPLY, "chunk_size": 16},
                doc(action="text_response", text_response="Read it."),
            ]
        }
    )
    result = await chat(client, "read the app")
    calls = [p["data"]["name"] for p in client.chat.items if p["kind"] == "tool_call"]  # type: ignore[attr-defined]
    assert calls == ["read_file"]
    feedback = str(fakellm.requests[1].body["messages"][-1]["content"])
    assert feedback.startswith("Error from read_file")
    assert "unexpected field" in feedback
    assert result["text"].endswith("Read it.")
