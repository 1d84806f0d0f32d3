"""Provider-written summaries (issue 14 item 2): the active provider describes a table in
one sentence, that sentence finds it, the original table is returned; cached; errors fall
back to the deterministic summary. Through a real server / `agent-ls index` and the fake LLM."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.e2e.conftest import settings_for
from tests.e2e.search_support import running_server, search, status
from tests.fakellm import FakeLLM

TABLE = "| code | window |\n|---|---|\n| Q1 | 02:00-04:00 |\n| Q2 | 03:00-05:00 |"
DOC = "# Operations\n\n## Windows\n\nWhen the hangar may be closed.\n\n" + TABLE + "\n"
SENTENCE = "Lists the quarterly zeppelin maintenance slots."
ASKED = "for a search index"  # in every summary prompt


def summary_requests(llm: FakeLLM) -> list[str]:
    prompts = [request.body["messages"][-1]["content"] for request in llm.requests]
    return [prompt for prompt in prompts if ASKED in prompt]


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "ops.md").write_text(DOC)
    (root / "notes.md").write_text("Nothing about airships here.\n")
    return root


async def test_the_providers_summary_finds_the_table_and_is_not_asked_again(
    tmp_path: Path,
) -> None:
    root = workspace(tmp_path)
    with FakeLLM({"rules": [{"match": ASKED, "reply": f"Summary: {SENTENCE}"}]}) as llm:
        async with running_server(root, settings_for(llm)) as (client, events):
            await events.wait_for(events.summarized("docs/ops.md"))
            # words only in the sentence; once the chunks' vectors are in, dense search may add
            # the aviation prose below it, so only the first hit is certain
            hit, *_ = await search(client, "zeppelin slots", k=3)
            assert hit["content"] == TABLE  # the original, byte-identical to the file
            assert (hit["type"], hit["startLine"], hit["endLine"]) == ("table", 7, 10)
            assert hit["summary"] == SENTENCE
            (prompt,) = summary_requests(llm)
            assert TABLE in prompt
            assert "docs/ops.md" in prompt
            assert "Operations > Windows" in prompt
            assert (await search(client, "hangar closed"))[0]["content"] == TABLE  # caption too
        (root / "docs" / "ops.md").write_text(DOC + "\nA new paragraph about runways.\n")
        async with running_server(root, settings_for(llm)) as (client, events):
            await events.wait_for(events.summarized("docs/ops.md"))  # re-chunked after restart
            hit, *_ = await search(client, "zeppelin slots", k=3)
            assert (hit["content"], hit["summary"]) == (TABLE, SENTENCE)
            assert len(summary_requests(llm)) == 1  # the unchanged table: from the cache


async def test_provider_errors_leave_the_deterministic_summary(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    with FakeLLM({"replies": [{"fault": "500"}]}) as llm:
        async with running_server(root, settings_for(llm)) as (client, events):
            # final once the failed question is over: written `ready` with the fallback
            await events.wait_for(events.summarized("docs/ops.md"))
            (hit,) = await search(client, "hangar closed", k=1)
            assert hit["content"] == TABLE
            assert hit["summary"].startswith("Table: When the hangar may be closed.")
            assert summary_requests(llm)  # it was asked, and failed
            assert (await status(client))["index"]["documents"]["ready"] == 2


def test_agent_ls_index_asks_the_configured_provider(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    with FakeLLM({"rules": [{"match": ASKED, "reply": SENTENCE}]}) as llm:
        env = {
            **os.environ,
            "AGENT_LS_PROVIDER": "openai",
            "AGENT_LS_BASE_URL": llm.base_url_openai,
            "AGENT_LS_MODEL": "fake",
        }

        def agent_ls(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, "-m", "server", *args, "--workspace", str(root)],
                capture_output=True,
                text=True,
                timeout=120,
                env=env,
                check=True,
            )

        assert json.loads(agent_ls("index", "--json").stdout)["indexed"] == 2
        (hit,) = json.loads(agent_ls("search", "--json", "--k", "1", "zeppelin").stdout)
        assert (hit["content"], hit["summary"]) == (TABLE, SENTENCE)
        (root / "docs" / "ops.md").write_text(DOC + "\nMore prose.\n")
        assert json.loads(agent_ls("index", "--json").stdout)["indexed"] == 1
        assert len(summary_requests(llm)) == 1
    plain = subprocess.run(  # no provider configured: nothing is asked, the fallback stays
        [sys.executable, "-m", "server", "search", "--workspace", str(root), "--json", "hangar"],
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if not k.startswith("AGENT_LS_")},
        check=True,
    )
    assert json.loads(plain.stdout)[0]["summary"] == SENTENCE  # unchanged: still indexed
