"""A markdown file's front matter is metadata, not a heading (issue #27): CommonMark alone reads
the closing ``---`` of a YAML front matter as a setext underline, so ``title: ... description:
...`` became the first heading of every chunk of the file and each of its words matched every
passage of it (npm's docs: a question on ``clean install`` found every chunk of the file whose
description says so before the passage answering it). Both stores; an index cut the former
way has its markdown documents cut again at the next update."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from actions.index.markdown_elements import parse_elements
from actions.index.pg_schema import SCHEMA
from actions.index.pg_store import PgStore
from actions.index.store import workspace_key
from tests.unit.index.test_cli_identifiers import agent_ls

ANSWER = "Rotating the signing keys revokes the old key once every client has fetched the new one."


def _workspace(root: Path) -> None:
    """``keys.md``: a command page whose front matter describes it in the question's words
    and whose passages never use them; ``security.md``: the passage answering the question."""
    (root / "keys.md").write_text(
        "---\ntitle: keys\nsection: 1\ndescription: Rotate the signing keys\n---\n\n"
        "### Synopsis\n\n```bash\nkeys [--force]\n```\n\n"
        "### Options\n\nForce skips the prompt.\n\n### Exit codes\n\nZero on success.\n",
        encoding="utf-8",
    )
    (root / "security.md").write_text(
        "# Security\n\n## Keys\n\n"
        "The server keeps its keys in the vault and loads them at start, each with its id, "
        f"its creation date and the clients allowed to use it.\n\n{ANSWER}\n",
        encoding="utf-8",
    )


def _search(root: Path, query: str, env: dict[str, str]) -> list[dict[str, object]]:
    result = agent_ls("search", "--workspace", str(root), "--k", "3", "--json", "--", query, **env)
    assert result.returncode == 0, result.stderr
    hits: list[dict[str, object]] = json.loads(result.stdout)
    return hits


OPTIONS = "Force skips the prompt."


def _headings_of(root: Path, passage: str, env: dict[str, str]) -> object:
    (hit,) = [hit for hit in _search(root, passage, env) if hit["content"] == passage]
    return hit["headings"]


def test_the_front_matter_heads_no_passage(tmp_path: Path, store_env: dict[str, str]) -> None:
    _workspace(tmp_path)
    built = agent_ls("index", "--workspace", str(tmp_path), "--json", **store_env)
    assert built.returncode == 0, built.stderr
    hits = _search(tmp_path, "rotate the signing keys", store_env)
    assert [hit["path"] for hit in hits][:1] == ["security.md"]
    assert ANSWER in str(hits[0]["content"])
    assert _headings_of(tmp_path, OPTIONS, store_env) == ["Options"]


def test_an_index_cut_the_former_way_is_cut_again(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    """The former cut is written back into the index (its headings), as a version-6 SQLite
    index / a PostgreSQL index without ``chunks_version`` holds it; the file is unchanged,
    so only the version tells the next update to cut it again."""
    _workspace(tmp_path)
    built = agent_ls("index", "--workspace", str(tmp_path), "--json", **store_env)
    assert built.returncode == 0, built.stderr
    former = json.dumps(["title: keys section: 1 description: Rotate the signing keys", "Options"])
    url = store_env["AGENT_LS_INDEX_URL"]
    if url:
        PgStore(url, workspace_key(tmp_path)).close()
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(
                f"UPDATE {SCHEMA}.chunks SET headings = %s::jsonb WHERE document = 'keys.md'",
                (former,),
            )
            conn.execute(f"DELETE FROM {SCHEMA}.meta WHERE key = 'chunks_version'")
    else:
        location = json.loads(built.stdout)["location"]
        db = sqlite3.connect(location, isolation_level=None)
        db.execute("UPDATE chunks SET headings = ? WHERE document = 'keys.md'", (former,))
        db.execute("PRAGMA user_version=6")
        db.close()
    again = agent_ls("index", "--workspace", str(tmp_path), "--json", **store_env)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["indexed"] == 2  # every markdown document, cut again
    assert _headings_of(tmp_path, OPTIONS, store_env) == ["Options"]


def test_front_matter_is_no_element_and_keeps_the_line_numbers() -> None:
    text = "---\ntitle: keys\ndescription: Rotate keys\n---\n\n# Keys\n\nRotate them.\n"
    assert [(e.type, e.start_line, e.headings) for e in parse_elements(text)] == [
        ("heading", 6, ("Keys",)),
        ("text", 8, ("Keys",)),
    ]
    toml = "+++\ntitle = 'keys'\n+++\nRotate them.\n"
    assert [(e.type, e.start_line, e.headings) for e in parse_elements(toml)] == [("text", 4, ())]


def test_a_rule_opening_a_file_is_no_front_matter() -> None:
    """A thematic break first and a setext heading later: not metadata (no ``key:`` line)."""
    text = "---\n\nIntro text.\n\nSetup\n---\n\nSteps.\n"
    assert [(e.type, e.content, e.headings) for e in parse_elements(text)] == [
        ("text", "Intro text.", ()),
        ("heading", "Setup\n---", ("Setup",)),
        ("text", "Steps.", ("Setup",)),
    ]


def test_a_heading_on_several_lines_keeps_its_words_apart() -> None:
    text = "Install the\npackage\n===\n\nRun it.\n"
    assert parse_elements(text)[1].headings == ("Install the package",)
