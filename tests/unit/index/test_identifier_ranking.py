"""Identifiers are first-class words (issue 27 item 4), through `agent-ls search` (real
processes, the embedded index, lexical search alone): a definition's name written as
snake_case, camelCase, PascalCase or a dotted/qualified name ranks that definition first, in
a workspace where the name's parts are everywhere (calls, prose, other definitions)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.index.test_cli_identifiers import agent_ls

NOISE = "".join(
    f"def use_{i}(path):\n    # load the settings, parse the response\n"
    f"    settings = load(path)\n    return parse(settings, response_{i})\n\n\n"
    for i in range(30)
)
FILES = {
    "app/config.py": "import os\n\n\n"
    + NOISE
    + "def load_settings(path):\n    return read(path)\n",
    "web/http.ts": "export function parseHttpResponse(raw: string): Response {\n"
    "  return new Response(raw);\n}\n\n"
    + "".join(f"export function handle{i}() {{ return parse(response); }}\n" for i in range(30)),
    "docs/guide.md": "# Settings\n\nTo load settings, parse the response of the server.\n" * 20,
    "src/Store.java": "package shop;\n\nclass Store {\n"
    + "".join(f"    void load{i}() {{ settings.load(); }}\n" for i in range(30))
    + "    Settings loadSettings(String name) {\n        return null;\n    }\n}\n",
}
# query -> (file, first line) of the chunk of the definition that must rank first
QUERIES = {
    "load_settings": ("app/config.py", 184),
    "where is LoadSettings defined": ("app/config.py", 184),
    "parse_http_response": ("web/http.ts", 1),
    "parseHttpResponse": ("web/http.ts", 1),
    "Store.loadSettings": ("src/Store.java", 3),  # in its class, a chunk of 34 lines
}


def test_a_query_naming_a_definition_ranks_it_first(tmp_path: Path) -> None:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    built = agent_ls("index", "--workspace", str(tmp_path), "--json", AGENT_LS_INDEX_URL="")
    assert built.returncode == 0, built.stderr
    found: dict[str, tuple[str, int] | None] = {}
    for query in QUERIES:
        result = agent_ls(
            "search",
            "--workspace",
            str(tmp_path),
            "--k",
            "3",
            "--json",
            "--",
            query,
            AGENT_LS_INDEX_URL="",
        )
        assert result.returncode == 0, result.stderr
        hits = json.loads(result.stdout)
        found[query] = (hits[0]["path"], hits[0]["startLine"]) if hits else None
    assert found == QUERIES
