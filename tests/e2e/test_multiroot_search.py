"""Retrieval in a multi-root workspace: every folder indexed and searched, paths qualified."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities, make_test_lsp_client

from server.protocol import AGENT_CHAT, AGENT_INDEX_UPDATED, CMD_REINDEX
from tests.e2e.conftest import as_dict, settings_for
from tests.e2e.conversations import doc, tool
from tests.e2e.search_support import IndexEvents, search, status
from tests.fakellm import FakeLLM


@asynccontextmanager
async def two_folders(
    roots: list[Path], settings: dict[str, Any]
) -> AsyncIterator[tuple[LanguageClient, IndexEvents]]:
    client = make_test_lsp_client()
    events = IndexEvents()

    async def on_index_updated(params: Any) -> None:
        await events.add(params)

    client.feature(AGENT_INDEX_UPDATED)(on_index_updated)
    client.feature("agent/chatProgress")(lambda params: None)
    await client.start_io(sys.executable, "-m", "server", env=dict(os.environ))
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=roots[0].as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=r.as_uri(), name=r.name) for r in roots],
            initialization_options={"agentLs": settings},
        )
    )
    try:
        yield client, events
    finally:
        await client.shutdown_session()
        await client.stop()


def folders(tmp_path: Path) -> list[Path]:
    front, back = tmp_path / "front", tmp_path / "back"
    (front / "docs").mkdir(parents=True)
    back.mkdir()
    (front / "docs" / "fruit.md").write_text("# Fruit\n\nThe kumquat is a small citrus.\n")
    (back / "notes.md").write_text("# Notes\n\nThe mango is tropical.\n")
    return [front, back]


async def test_every_folder_is_indexed_and_searched_with_qualified_paths(
    tmp_path: Path, fakellm: FakeLLM
) -> None:
    roots = folders(tmp_path)
    async with two_folders(roots, settings_for(fakellm)) as (client, events):
        await events.wait_for(events.indexed("front/docs/fruit.md"))
        await events.wait_for(events.indexed("back/notes.md"))
        # the best hit (with the embeddings extra, a similar passage of the other folder may
        # follow: "mango" is close to the kumquat's fruit page by meaning)
        assert (await search(client, "kumquat"))[0]["path"] == "front/docs/fruit.md"
        assert (await search(client, "mango"))[0]["path"] == "back/notes.md"

        (roots[1] / "lychee.md").write_text("# Lychee\n\nThe lychee is sweet.\n")
        await events.wait_for(events.indexed("back/lychee.md"))
        assert (await search(client, "lychee"))[0]["path"] == "back/lychee.md"

        fakellm.set_script(
            {
                "replies": [
                    tool("search_docs", query="mango tropical"),
                    doc(action="text_response", text_response="found it"),
                ]
            }
        )
        await client.protocol.send_request_async(AGENT_CHAT, {"message": "where is mango?"})
        told = fakellm.requests[1].body["messages"][-1]["content"]
        assert "/back/notes.md lines" in told

        report = await status(client)
        assert [(f["name"], f["index"]["documents"]["ready"]) for f in report["folders"]] == [
            ("front", 1),
            ("back", 2),
        ]
        counts = as_dict(
            await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=CMD_REINDEX, arguments=[{}])
            )
        )
        assert counts["documents"]["ready"] == 3
