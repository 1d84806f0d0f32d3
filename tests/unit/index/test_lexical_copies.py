"""BM25 alone lists a passage copied word for word into several files once, as hybrid search
does (issue 27, round 5): npm's docs repeat an ERESOLVE paragraph in six files and its copies
took six of BM25's ten places, pushing answers down. Both stores (PostgreSQL real), through
`agent-ls search` with no model, and the rule on a ranking."""

from __future__ import annotations

from pathlib import Path

from actions.index.embeddings import distinct
from tests.unit.index.test_cli_dense import index, search

NO_MODEL = {"AGENT_LS_EMBEDDINGS": "0"}
COPIED = (
    "ERESOLVE: npm refuses to install when peer dependency versions conflict; the conflicting"
    " peer dependency is printed with the package that needs it."
)
COMMANDS = ("install", "install-test", "install-ci-test", "ci", "link")
ANSWER = "legacy-peer-deps: ignore peer dependency conflicts when installing, as npm 6 did."
OTHER = "strict-peer-deps: fail the install on any peer dependency conflict, even a resolvable one."


def test_bm25_lists_a_copied_passage_once(tmp_path: Path, store_env: dict[str, str]) -> None:
    for command in COMMANDS:
        (tmp_path / f"npm-{command}.md").write_text(
            f"# npm {command}\n\nRuns npm {command}.\n\n## Conflicts\n\n{COPIED}\n"
        )
    (tmp_path / "config.md").write_text(
        f"# Config\n\n## legacy-peer-deps\n\n{ANSWER}\n\n## strict-peer-deps\n\n{OTHER}\n"
    )
    assert index(tmp_path, **NO_MODEL, **store_env)["chunks"] == 2 * len(COMMANDS) + 2
    found = search(tmp_path, "install peer dependency conflicts", **NO_MODEL, **store_env)
    contents = [hit["content"] for hit in found]
    assert len(found) == 3
    assert sorted(contents) == sorted((COPIED, ANSWER, OTHER))  # three distinct answers
    assert [hit["score"] for hit in found] == sorted((h["score"] for h in found), reverse=True)


def test_the_rule_on_a_ranking() -> None:
    text = {"a1": "a", "a2": "a", "b": "b", "a3": "a", "c": "c"}
    ranking = [("a1", 9.0), ("a2", 9.0), ("b", 5.0), ("a3", 4.0), ("c", 3.0)]
    assert distinct(ranking, 3, passage=text.__getitem__) == [("a1", 9.0), ("b", 5.0), ("c", 3.0)]
    assert distinct(ranking, 1, passage=text.__getitem__) == [("a1", 9.0)]
    assert distinct(ranking, 0, passage=text.__getitem__) == []
