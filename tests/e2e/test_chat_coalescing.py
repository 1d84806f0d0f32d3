"""Streamed text is coalesced into fewer agent/chatProgress notifications, never reordered."""

from __future__ import annotations

import json

from pytest_lsp import LanguageClient

from tests.e2e.conftest import chat
from tests.fakellm import FakeLLM

FAST = "".join(f"w{i:03d} " for i in range(200))


async def test_a_fast_stream_is_coalesced_and_adds_up_exactly(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    fakellm.set_script({"replies": [{"content": FAST, "chunk_size": 5}]})  # 200 chunks
    client.progress_reports.setdefault("tok-c", [])
    result = await chat(client, "stream fast", workDoneToken="tok-c")

    deltas = client.chat.texts(result["sessionId"])
    assert "".join(deltas) == result["text"] == FAST
    assert len(deltas) < 100  # 200 chunks from the model, far fewer notifications
    reports = client.progress_reports["tok-c"]
    assert "".join(r.message or "" for r in reports if r.kind == "report") == FAST


async def test_pending_text_goes_out_before_a_tool_call_and_the_first_delta_at_once(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    call = json.dumps(
        {"action": "tool_call", "tool_call": {"function_name": "list_files", "args": {}}}
    )
    before = "Let me look at the files first. " * 4
    fakellm.set_script(
        {
            "replies": [
                {"content": before + "\n```json\n" + call + "\n```\n", "chunk_size": 3},
                {"content": "Done looking.", "chunk_size": 2},
            ]
        }
    )
    result = await chat(client, "list them")

    items = [i for i in client.chat.items if i["sessionId"] == result["sessionId"]]
    kinds = [i["kind"] for i in items]
    first_call = kinds.index("tool_call")
    text_before = "".join(i["delta"] for i in items[:first_call] if i["kind"] == "text")
    assert text_before.strip() == before.strip()
    assert items[0]["kind"] == "text"
    assert before.startswith(items[0]["delta"])
    assert len(items[0]["delta"]) < 12  # the first text went out alone, not held back
    assert "".join(i["delta"] for i in items if i["kind"] == "text") == result["text"]
