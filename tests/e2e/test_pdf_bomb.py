"""A PDF bomb in the workspace (issue 21 item 5): opening the workspace indexes it in the
background; it is refused once its streams inflate past 256 MB (in the conversion's child
process, bounded in memory and time), the PDF is recorded `failed` with that reason, and the
server lives on — an ordinary PDF beside it is indexed and searchable."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.search_support import running_server, search, status
from tests.pdf_docs import ROWS, bomb_pdf, manual_pdf, table_markdown

BOMB_REASON = "its compressed streams inflate to more than 256 MB"


async def test_a_pdf_bomb_fails_with_its_reason_and_the_server_lives(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    bomb = bomb_pdf(root / "docs" / "bomb.pdf")  # 2 GB of zeros in about 2 MB
    assert bomb.stat().st_size < 4 * 2**20
    manual_pdf(root / "docs" / "manual.pdf")
    (root / "notes.md").write_text("The kumquat is a small citrus.\n")
    async with running_server(root) as (client, events):
        # the first build's report (the client mangles the keys of `failed`: it has one)
        built = await events.wait_for(lambda item: bool(item["failed"]), timeout=120)
        assert sorted(built["indexed"]) == ["docs/manual.pdf", "notes.md"]
        assert [reason.startswith(BOMB_REASON) for reason in built["failed"].values()] == [True]
        await events.wait_for(events.summarized("docs/manual.pdf"), timeout=60)  # final
        index = (await status(client))["index"]
        reasons = {failure["path"]: failure["reason"] for failure in index["failures"]}
        assert reasons["docs/bomb.pdf"].startswith(BOMB_REASON)
        assert index["documents"]["ready"] == 2
        (table,) = await search(client, "spooler limits ceiling", k=1)
        assert table["content"] == table_markdown(ROWS)
        assert (await search(client, "kumquat", k=1))[0]["path"] == "notes.md"
