"""Incremental indexing of a workspace: lifecycle, restarts, bad files (issue 14 items 3-5, 8)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from actions.index import IndexConfig, WorkspaceIndex, open_index
from actions.paths import Workspace

TABLE = "| flag | meaning |\n|---|---|\n" + "".join(
    f"| --opt{i} | option number {i} |\n" for i in range(200)
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "guide.md").write_text(
        "# Guide\n\n## Flags\n\nThe flags below tune the frobnicator.\n\n" + TABLE
    )
    (root / "src").mkdir()
    (root / "src" / "tool.py").write_text(
        "import os\n\n\ndef compute_checksum(data):\n    return sum(data)\n\n\n"
        "class Widget:\n    def spin(self):\n        return 1\n"
    )
    (root / "notes.txt").write_text("Plain notes about kiwis.\n")
    return root


def index_of(root: Path, **config: int) -> WorkspaceIndex:
    return open_index(Workspace(root), config=IndexConfig(**config))  # type: ignore[arg-type]


async def test_index_then_search_returns_original_elements(ws: Path) -> None:
    index = index_of(ws)
    report = await index.update_all()
    assert sorted(report.indexed) == ["docs/guide.md", "notes.txt", "src/tool.py"]
    status = await index.status()
    assert status.counts == {"pending": 0, "chunked": 0, "ready": 3, "failed": 0}
    (table,) = [h for h in await index.search("frobnicator flags", 5) if h.chunk.type == "table"]
    assert table.chunk.content == TABLE.rstrip("\n")  # byte-identical to the file
    assert table.chunk.headings == ("Guide", "Flags")
    assert table.chunk.summary.startswith("Table: The flags below tune the frobnicator.")
    assert (table.chunk.start_line, table.chunk.end_line) == (7, 208)
    hit = (await index.search("compute checksum", 1))[0]
    assert (hit.chunk.document, hit.chunk.headings) == (
        "src/tool.py",
        ("function compute_checksum", "def compute_checksum(data)"),
    )
    assert hit.chunk.content == "def compute_checksum(data):\n    return sum(data)"
    index.close()


async def test_a_query_matching_only_the_summary_finds_the_table(ws: Path) -> None:
    index = index_of(ws)
    await index.update_all()
    hits = await index.search("frobnicator", 3)
    assert "table" in [hit.chunk.type for hit in hits]
    index.close()


async def test_restart_rechunks_nothing_unchanged(ws: Path) -> None:
    first = index_of(ws)
    await first.update_all()
    first.close()
    (ws / "notes.txt").write_text("Plain notes about mangos.\n")
    (ws / "src" / "tool.py").unlink()
    second = index_of(ws)
    report = await second.update_all()
    assert report.indexed == ["notes.txt"]
    assert report.removed == ["src/tool.py"]
    assert sorted(report.unchanged) == ["docs/guide.md"]
    # the old texts are gone (with vectors ready, a similar-enough chunk may still come back
    # for the old words: the guide's table for "checksum", the mango notes for "kiwis")
    assert all("kiwis" not in hit.chunk.content for hit in await second.search("kiwis", 3))
    assert (await second.search("mangos", 3))[0].chunk.document == "notes.txt"
    checksum = await second.search("checksum", 3)
    assert all(hit.chunk.document != "src/tool.py" for hit in checksum)
    second.close()


async def test_touched_but_identical_file_is_not_rechunked(ws: Path) -> None:
    index = index_of(ws)
    await index.update_all()
    os.utime(ws / "notes.txt", ns=(1, 1))
    report = await index.update_paths(["notes.txt"])
    assert report.unchanged == ["notes.txt"]
    assert report.indexed == []
    index.close()


async def test_ignored_secret_and_noise_files_are_not_indexed(ws: Path) -> None:
    (ws / ".gitignore").write_text("build/\n*.log\n")
    (ws / "build").mkdir()
    (ws / "build" / "out.md").write_text("generated zebra\n")
    (ws / "debug.log").write_text("zebra log\n")
    (ws / ".env").write_text("API_KEY=zebra-secret\n")
    (ws / "node_modules").mkdir()
    (ws / "node_modules" / "x.md").write_text("zebra dependency\n")
    index = index_of(ws)
    await index.update_all()
    documents = await index.status()
    assert documents.counts["ready"] == 4  # the three files and .gitignore
    assert await index.search("zebra", 10) == []
    report = await index.update_paths(["build/out.md", "debug.log", ".env"])
    assert report.changed == []
    index.close()


async def test_bad_files_fail_with_a_reason_and_the_rest_is_indexed(ws: Path) -> None:
    (ws / "binary.md").write_bytes(b"# Title\n\0\0\0 binary")
    (ws / "latin1.md").write_bytes("caf\xe9 ol\xe9".encode("latin-1"))
    with open(ws / "huge.md", "wb") as handle:  # 200 MB, sparse
        handle.truncate(200 * 2**20)
    (ws / "dangling.md").symlink_to(ws / "nowhere.md")
    index = index_of(ws)
    report = await index.update_all()
    assert report.failed == {
        "binary.md": "binary (NUL bytes)",
        "dangling.md": "refused: 'dangling.md' is a dangling symlink",
        "huge.md": f"too large ({200 * 2**20} bytes > {4 * 2**20} limit)",
        "latin1.md": "not UTF-8 text (byte 3)",
    }
    status = await index.status()
    assert status.counts["ready"] == 3
    assert {f.path: f.reason for f in status.failures} == report.failed
    assert (await index.search("frobnicator", 1))[0].chunk.document == "docs/guide.md"
    index.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 file anyway")
async def test_unreadable_file_fails_with_a_reason(ws: Path) -> None:
    secret = ws / "locked.md"
    secret.write_text("locked")
    secret.chmod(0)
    index = index_of(ws)
    report = await index.update_all()
    assert report.failed["locked.md"].startswith("unreadable")
    index.close()


async def test_a_git_workspace_uses_git_rules(ws: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    (ws / ".git" / "info" / "exclude").write_text("notes.txt\n")
    index = index_of(ws)
    report = await index.update_all()
    assert "notes.txt" not in report.indexed
    assert "docs/guide.md" in report.indexed
    index.close()


async def test_a_file_deleted_mid_index_fails_with_a_reason_and_the_rest_is_indexed(
    ws: Path,
) -> None:
    (ws / "zz-last.md").write_text("Deleted before its turn.\n")
    index = index_of(ws, batch_documents=1)  # progress after each document

    def delete_the_last(done: int, total: int, path: str) -> None:
        if done == 1:
            (ws / "zz-last.md").unlink()

    report = await index.update_all(delete_the_last)
    assert report.failed == {"zz-last.md": "deleted while being indexed"}
    assert sorted(report.indexed) == ["docs/guide.md", "notes.txt", "src/tool.py"]
    status = await index.status()
    assert status.counts == {"pending": 0, "chunked": 0, "ready": 3, "failed": 1}
    again = await index.update_all()
    assert again.removed == ["zz-last.md"]  # the next build forgets it
    assert (await index.status()).counts["failed"] == 0
    index.close()
