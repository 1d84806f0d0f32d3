"""A scripted conversation: the model searches the docs, reads what it found, then edits."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import LanguageClient

from server.protocol import CMD_REINDEX
from tests.e2e.conftest import chat
from tests.e2e.conversations import doc, fenced, tool
from tests.fakellm import FakeLLM

GUIDE = """\
# Operations

## Timeouts

| setting | default | meaning |
|---|---|---|
| connect_timeout | 10 | seconds to open a connection |
| read_timeout | 30 | seconds to wait for a reply |

## Backups

Backups run nightly.
"""
NEW_GUIDE = GUIDE.replace("| read_timeout | 30 |", "| read_timeout | 60 |")


async def test_model_searches_then_reads_the_range_then_edits(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    root = client.workspace_path  # type: ignore[attr-defined]
    (root / "docs").mkdir()
    (root / "docs" / "ops.md").write_text(GUIDE)
    (root / "README.md").write_text("# Project\n\nSee docs/ops.md for operations.\n")
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=CMD_REINDEX, arguments=[])
    )
    fakellm.set_script(
        {
            "replies": [
                tool("search_docs", query="read timeout default", k=3),
                # read_file line ranges are not on main yet: the model reads the whole file
                tool("read_file", path="/docs/ops.md"),
                fenced(
                    action="start_multi_file",
                    plan={
                        "description": "Raise the read timeout",
                        "files_to_modify": ["/docs/ops.md"],
                    },
                    first_file={
                        "action": "update_file",
                        "file": {"path": "/docs/ops.md", "content": NEW_GUIDE},
                    },
                    message="Raising read_timeout to 60",
                ),
                doc(action="text_response", text_response="read_timeout is now 60 seconds."),
            ]
        }
    )

    result = await chat(client, "Double the read timeout in the docs")

    assert (root / "docs" / "ops.md").read_text() == NEW_GUIDE
    assert result["text"].endswith("read_timeout is now 60 seconds.")
    bodies = [  # the chat's requests (the index also asked the model to summarize the table)
        request.body["messages"]
        for request in fakellm.requests
        if "for a search index" not in request.body["messages"][-1]["content"]
    ]
    found = bodies[1][-1]["content"]  # what search_docs gave the model
    assert "/docs/ops.md lines 5-8 (table) — Operations > Timeouts" in found
    assert "| read_timeout | 30 | seconds to wait for a reply |" in found
    assert found.index("/docs/ops.md lines 5-8") < found.find("README.md") or (
        "README.md" not in found
    )
    read = bodies[2][-1]["content"]
    assert "Backups run nightly." in read
