"""A huge one-line file through the real server and the fake LLM: read_file and search_files
read it in bounded blocks, answer with a bounded result and say what was cut (the memory
figures are in bench/read_file_memory.py)."""

from __future__ import annotations

from pathlib import Path

from pytest_lsp import LanguageClient

from tests.e2e.conftest import chat
from tests.e2e.conversations import doc, tool
from tests.fakellm import FakeLLM

MB = 2**20


def one_line(path: Path, size: int, needle_at: int = -1) -> None:
    """`size` bytes of one line without a line break, written in 1 MB chunks; 'needle'
    at offset `needle_at` when given."""
    chunk = b"abcdefgh" * (MB // 8)
    with open(path, "wb") as handle:
        for start in range(0, size, MB):
            handle.write(chunk[: min(MB, size - start)])
        if needle_at >= 0:
            handle.seek(needle_at)
            handle.write(b"needle")


async def test_a_huge_one_line_file_is_read_and_searched_bounded(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    root: Path = client.workspace_path  # type: ignore[attr-defined]
    one_line(root / "huge.min.js", 64 * MB)
    one_line(root / "wide.txt", MB, needle_at=600_000)
    fakellm.set_script(
        {
            "replies": [
                tool("read_file", path="/huge.min.js", start_line=1, end_line=1),
                tool("read_file", path="/huge.min.js"),
                tool("search_files", pattern="needle"),
                tool("search_files", pattern="abcdefgh", path="/huge.min.js"),
                doc(action="text_response", text_response="done"),
            ]
        }
    )
    await chat(client, "read the big files")
    ranged, whole, search, huge = (r.body["messages"][-1]["content"] for r in fakellm.requests[1:5])
    cut = f"line 1 is {64 * MB} bytes long: cut after its first {256 * 1024} bytes"
    for text in (ranged, whole):
        assert cut in text
        assert len(text) < 300 * 1024
    assert "/wide.txt:1: …" in search
    assert "needle" in search
    assert f"(a line of {MB} bytes, cut)" in search
    assert len(search) < 2000
    assert "No line matches" in huge
    assert f"(skipped /huge.min.js: larger than {2 * MB} bytes)" in huge
