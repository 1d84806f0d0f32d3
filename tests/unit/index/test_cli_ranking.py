"""Lexical ranking as users meet it, through `agent-ls search` (real processes), on the embedded
SQLite index and on PostgreSQL: every content word of a question counts, also the words many
chunks hold (issue #27: "convert a file: URL into a filesystem path" used to be searched as
`filesystem convert into`, the answer lost behind chunks sharing only those three words).
Lexical search alone (`AGENT_LS_EMBEDDINGS=0`): a dense vector must not hide a lexical miss."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.index.test_cli_identifiers import agent_ls

FILLER_FILES = 48
SECTIONS = 50  # 2,400 chunks: 'file', 'url' and 'path' each in 600 (25%, over the old 1% cut)
ANSWER = "It will convert a file URL into a filesystem path, also on Windows hosts."
DECOY = "The checker may convert a report into a filesystem snapshot."


def _workspace(root: Path) -> None:
    docs = root / "docs"
    docs.mkdir()
    for number in range(FILLER_FILES):
        sections = []
        for position in range(SECTIONS):
            serial = number * SECTIONS + position
            if serial % 4 == 0:
                body = f"Reading the file at this path or url is step w{serial} of the loader."
            else:
                body = f"The scheduler keeps item w{serial} in its queue until the timer fires."
            sections.append(f"## Section {serial}\n\n{body}\n")
        (docs / f"notes-{number:02d}.md").write_text("\n".join(sections), encoding="utf-8")
    decoys = [f"## Report {number}\n\n{DECOY}\n" for number in range(5)]
    (docs / "reports.md").write_text("\n".join(decoys), encoding="utf-8")
    (docs / "conversions.md").write_text(f"# Conversions\n\n{ANSWER}\n", encoding="utf-8")


def test_every_content_word_of_the_question_ranks(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    _workspace(tmp_path)
    built = agent_ls("index", "--workspace", str(tmp_path), "--json", **store_env)
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["documents"]["ready"] == FILLER_FILES + 2
    query = "convert a file: URL into a filesystem path"
    result = agent_ls(
        "search", "--workspace", str(tmp_path), "--k", "3", "--json", "--", query, **store_env
    )
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)
    assert [hit["path"] for hit in hits][:1] == ["docs/conversions.md"]
    assert "convert a file URL into a" in hits[0]["content"]
