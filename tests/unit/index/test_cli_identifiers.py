"""Code identifiers as users search them, through `agent-ls search` (real processes), on the
embedded SQLite index and on PostgreSQL: snake_case, camelCase, dotted names, paths and
punctuation-heavy queries each find the file that holds them, first. Lexical search alone
(`AGENT_LS_EMBEDDINGS=0`): a dense vector must not hide a lexical miss."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

FILES = {
    "src/normal.py": "def findme_normal_word(items):\n    return [item for item in items]\n",
    "src/users.ts": "export function getUserName(user: User): string {\n  return user.name;\n}\n",
    "src/http.py": "class ParseHTTPResponse:\n    status_code = 200\n",
    "src/settings.py": "from zorblax import config\n\nvalues = zorblax.config.load_settings()\n",
    "src/utils/string_helpers.py": "def pad(text):\n    return text.center(40)\n",
    "src/vec.cpp": "#include <vector>\nstd::vector<int> quuxly;\nquuxly->push_back(3);\n",
    "src/limits.h": "#define MAX_RETRY_COUNT 5\n",
    "src/cli.rs": "#[derive(Debug)]\nstruct Args { dry_run: bool } // --dry-run\n",
    "src/routes.py": '@app.route("/api/v1/widgets")\ndef widgets():\n    return []\n',
    "docs/arch.md": "# Targets\n\nWe build for x86_64 and aarch64 only.\n",
    "docs/menu.md": "# Menu\n\nThe café_crème recipe uses whole milk.\n",
    "docs/plain.md": "# Notes\n\nNothing special here about words or items.\n",
}
# query -> the file that must rank first
QUERIES = [
    ("findme_normal_word", "src/normal.py"),
    ("getUserName", "src/users.ts"),
    ("ParseHTTPResponse", "src/http.py"),
    ("zorblax.config.load_settings", "src/settings.py"),
    ("src/utils/string_helpers.py", "src/utils/string_helpers.py"),
    ("std::vector<int> quuxly->push_back()", "src/vec.cpp"),
    ("MAX_RETRY_COUNT", "src/limits.h"),
    ("--dry-run", "src/cli.rs"),
    ('@app.route("/api/v1/widgets")', "src/routes.py"),
    ("x86_64", "docs/arch.md"),
    ("café_crème", "docs/menu.md"),
]


def agent_ls(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "AGENT_LS_EMBEDDINGS": "0", **env},
        check=False,
    )


def test_identifier_queries_find_their_file_first(
    tmp_path: Path, store_env: dict[str, str]
) -> None:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    built = agent_ls("index", "--workspace", str(tmp_path), "--json", **store_env)
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["documents"]["ready"] == len(FILES)
    found: dict[str, Any] = {}
    for query, _ in QUERIES:
        result = agent_ls(
            "search", "--workspace", str(tmp_path), "--k", "3", "--json", "--", query, **store_env
        )
        assert result.returncode == 0, result.stderr
        hits = json.loads(result.stdout)
        found[query] = hits[0]["path"] if hits else None
    assert found == dict(QUERIES)
