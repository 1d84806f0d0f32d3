"""read_file and plans over a `BufferSource` (the editor's text of files): what the editor
holds is read, within the same limits as the disk; an editor error leaves the disk read, with
a note; an unsaved buffer is the pre-image an undo gives back."""

from __future__ import annotations

from pathlib import Path

import pytest

from actions.apply import DiskApplier
from actions.buffers import BufferUnreadable
from actions.checkpoints import CheckpointStore
from actions.paths import Workspace
from actions.plans import PlanFiles
from actions.schema import UpdateFileOp
from actions.tools import ReadFile, ReadFileConfig, ToolResult, default_registry


class Buffers:
    """An editor holding `texts` (absolute path -> text); `broken` paths answer an error."""

    def __init__(self, texts: dict[Path, str], broken: set[Path] | None = None) -> None:
        self.texts = texts
        self.broken = broken or set()
        self.asked: list[Path] = []

    async def buffer_text(self, path: Path) -> str | None:
        self.asked.append(path)
        if path in self.broken:
            raise BufferUnreadable("the buffer is locked")
        return self.texts.get(path)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("disk 1\ndisk 2\n")
    (tmp_path / "b.txt").write_text("only on disk\n")
    (tmp_path / "bin.dat").write_bytes(b"\0\1\2")
    return tmp_path


async def read(
    root: Path, buffers: Buffers, config: ReadFileConfig | None = None, **args: object
) -> ToolResult:
    return await ReadFile(Workspace(root), config, buffers=buffers).execute(args)


@pytest.mark.parametrize(
    ("args", "shown", "hidden"),
    [
        ({"path": "/a.txt"}, "buffer 1\nbuffer 2\nbuffer 3\n", "disk 1"),
        ({"path": "/a.txt", "start_line": 2, "end_line": 2}, "2\tbuffer 2", "buffer 1"),
        ({"paths": ["/a.txt", "/b.txt"]}, "only on disk", "disk 1"),
    ],
    ids=["whole", "range", "batch"],
)
async def test_the_editors_text_is_read(
    root: Path, args: dict[str, object], shown: str, hidden: str
) -> None:
    buffers = Buffers({root / "a.txt": "buffer 1\nbuffer 2\nbuffer 3\n"})
    result = await read(root, buffers, **args)
    assert result.ok
    assert shown in result.text
    assert hidden not in result.text


async def test_a_big_buffer_comes_back_as_a_page(root: Path) -> None:
    text = "".join(f"line {n}\n" for n in range(1, 200))
    buffers = Buffers({root / "a.txt": text})
    result = await read(root, buffers, ReadFileConfig(per_file_bytes=100), path="/a.txt")
    assert "cut at the per-file limit" in result.text
    assert "line 1\n" in result.text
    assert "line 150" not in result.text


async def test_an_editor_error_reads_the_disk_with_a_note(root: Path) -> None:
    buffers = Buffers({}, broken={root / "a.txt"})
    result = await read(root, buffers, path="/a.txt")
    assert result.ok
    assert "disk 1" in result.text
    assert "the editor could not give its text (the buffer is locked)" in result.text


async def test_binary_missing_and_refused_files_are_not_asked_for(root: Path) -> None:
    buffers = Buffers({})
    result = await read(root, buffers, paths=["/bin.dat", "/missing.txt", "../outside.txt"])
    assert "binary file, not shown" in result.text  # binary counts as an answer
    assert buffers.asked == []


async def test_the_registry_swaps_one_tool_and_shares_the_rest(root: Path) -> None:
    registry = default_registry(Workspace(root), search_docs=False)
    buffers = Buffers({root / "a.txt": "buffer\n"})
    swapped = registry.replaced(ReadFile(Workspace(root), buffers=buffers))
    assert swapped.names() == registry.names()
    assert swapped.manifests() == registry.manifests()
    assert "buffer" in (await swapped.call("read_file", {"path": "/a.txt"})).text
    assert "disk 1" in (await registry.call("read_file", {"path": "/a.txt"})).text


def update(path: str, content: str) -> UpdateFileOp:
    return UpdateFileOp.model_validate(
        {"action": "update_file", "file": {"path": path, "content": content}}
    )


async def test_a_plans_pre_image_is_the_editors_text_and_never_a_binary_files(
    root: Path, tmp_path: Path
) -> None:
    """An unsaved buffer is what the plan's undo gives back; a binary file keeps its bytes
    whatever the editor says of it."""
    store = CheckpointStore(root, store_dir=tmp_path / "store")
    buffers = Buffers({root / "a.txt": "unsaved\n", root / "bin.dat": "\ufffd\x01\x02"})
    plans = PlanFiles(Workspace(root), store, DiskApplier(root), buffers=buffers)
    plan = await plans.start("two files", ["/a.txt", "/bin.dat"], "s")
    await plans.apply(plan, update("/a.txt", "new\n"))
    await plans.apply(plan, update("/bin.dat", "text now\n"))
    assert await plans.commit(plan)
    store.undo()
    assert (root / "a.txt").read_text() == "unsaved\n"
    assert (root / "bin.dat").read_bytes() == b"\0\1\2"
