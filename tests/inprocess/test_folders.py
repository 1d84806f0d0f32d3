"""Per-folder state is opened once, off the event loop, and shared; capabilities resolved once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import client_capabilities

from actions.review import new_plan
from server.capabilities import ResolvedClientCapabilities
from server.live_index import open_live
from server.workspace import Folders, FolderUnavailable


async def test_concurrent_requests_share_one_opening_and_later_ones_reuse_it(
    tmp_path: Path,
) -> None:
    folders = Folders()
    first, second = await asyncio.gather(folders.get(tmp_path), folders.get(tmp_path))
    assert first is second
    assert await folders.get(tmp_path) is first
    assert first.store.workspace == tmp_path.resolve()
    assert first.registry.manifests()  # the tools are bound to the folder


async def test_a_folder_that_cannot_be_opened_is_tried_again_next_time(tmp_path: Path) -> None:
    folders = Folders()
    missing = tmp_path / "not-yet"
    with pytest.raises(FolderUnavailable, match="not a folder"):
        await folders.get(missing)
    missing.mkdir()
    opened = await folders.get(missing)
    assert opened.root == missing


async def test_different_folders_get_different_contexts(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    folders = Folders()
    a, b = await folders.get(tmp_path / "a"), await folders.get(tmp_path / "b")
    assert a.store.store_dir != b.store.store_dir


async def test_closing_a_folder_stops_its_index_and_drops_its_plans(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("A = 1\n")
    folders = Folders()
    context = await folders.get(tmp_path)
    state = folders.folder(tmp_path)
    state.board.add(new_plan("chat"))
    live = open_live(tmp_path, "", lambda payload: None)
    state.use_index(live, "")
    live.start(watch_files=True)
    await live.ready()
    await asyncio.wait_for(live.watching.wait(), 30)
    assert live.running  # the watcher

    await folders.close(tmp_path)

    assert not live.running
    assert not state.board.plans
    again = folders.folder(tmp_path)
    assert again is not state
    assert again.index is None
    assert not again.board.plans
    reopened = await folders.get(tmp_path)
    assert reopened is not context
    assert reopened.store.workspace == tmp_path.resolve()


@pytest.mark.parametrize(
    ("client", "expected"),
    [
        (
            "visual-studio-code",
            ResolvedClientCapabilities(True, True, frozenset({"edit"}), configuration=True),
        ),
        (
            "neovim",
            ResolvedClientCapabilities(
                True, True, frozenset({"edit", "command"}), configuration=True
            ),
        ),
    ],
)
def test_capabilities_of_real_clients_are_resolved(
    client: str, expected: ResolvedClientCapabilities
) -> None:
    assert ResolvedClientCapabilities.from_lsp(client_capabilities(client)) == expected


def test_a_client_that_declares_nothing_gets_the_conservative_answers() -> None:
    resolved = ResolvedClientCapabilities.from_lsp(types.ClientCapabilities())
    assert resolved == ResolvedClientCapabilities(False, False, frozenset())
