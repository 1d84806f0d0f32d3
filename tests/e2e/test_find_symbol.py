"""The scripted model finds definitions by name in a multi-language workspace (issue 27 item
4): `find_symbol` and `search_docs` through the real server give the definition's exact lines,
in one folder and across the folders of a multi-root workspace."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from server.protocol import AGENT_CHAT, CMD_REINDEX
from tests.e2e.conftest import chat, settings_for
from tests.e2e.conversations import doc, tool
from tests.e2e.test_multiroot_search import two_folders
from tests.fakellm import FakeLLM

FILES = {
    "web/config.ts": (
        'import { readFileSync } from "fs";\n'
        "\n"
        "export function parseConfig(text: string): Config {\n"  # 3
        "  return JSON.parse(text);\n"
        "}\n"  # 5
        "\n"
        "export const loadSettings = (path: string): Config =>\n"  # 7
        '  parseConfig(readFileSync(path, "utf8"));\n'  # 8
    ),
    "store/store.go": (
        "package store\n"
        "\n"
        "type Store struct {\n"  # 3
        "\tvalues map[string]int\n"
        "}\n"  # 5
        "\n"
        "func (s *Store) Lookup(key string) (int, bool) {\n"  # 7
        "\tv, ok := s.values[key]\n"
        "\treturn v, ok\n"
        "}\n"  # 10
    ),
    "geo/point.rs": (
        "pub struct Point {\n"
        "    x: f64,\n"
        "}\n"
        "\n"
        "impl Point {\n"  # 5
        "    pub fn norm(&self) -> f64 {\n"  # 6
        "        self.x.abs()\n"
        "    }\n"  # 8
        "}\n"
    ),
    "app/http.py": (
        "import json\n"
        "\n"
        "\n"
        "class Client:\n"  # 4
        '    """Talks HTTP."""\n'
        "\n"
        "    def parse_http_response(self, raw: bytes) -> dict:\n"  # 7
        "        return json.loads(raw)\n"  # 8
    ),
    "docs/guide.md": "# Guide\n\nCall loadSettings, then Lookup; parse the response.\n",
}


def find(name: str, **more: str) -> str:
    """The model's find_symbol call (``tool()``'s own first parameter is called ``name``)."""
    return doc(
        action="tool_call",
        tool_call={"function_name": "find_symbol", "args": {"name": name, **more}},
    )


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def told(fakellm: FakeLLM) -> list[str]:
    """What each tool call gave the model (the last message of each request after the first)."""
    return [
        request.body["messages"][-1]["content"]
        for request in fakellm.requests[1:]
        if "for a search index" not in request.body["messages"][-1]["content"]
    ]


async def test_the_model_finds_definitions_by_name_with_their_exact_lines(
    client: LanguageClient, fakellm: FakeLLM
) -> None:
    root = client.workspace_path  # type: ignore[attr-defined]
    write(root, FILES)
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=CMD_REINDEX, arguments=[])
    )
    fakellm.set_script(
        {
            "replies": [
                find("load_settings"),
                find("Store.Lookup"),
                find("Point::norm", kind="method"),
                tool("search_docs", query="parseHttpResponse", k=1),
                doc(action="text_response", text_response="found them"),
            ]
        }
    )
    result = await chat(client, "where are loadSettings, Lookup, norm and parse_http_response?")
    assert result["text"].endswith("found them")
    settings, lookup, norm, http = told(fakellm)
    assert "function loadSettings — /web/config.ts lines 7-8" in settings
    assert "parseConfig(readFileSync(path" in settings
    assert "method Store.Lookup — /store/store.go lines 7-10" in lookup
    assert "func (s *Store) Lookup(key string) (int, bool)" in lookup
    assert "method Point.norm — /geo/point.rs lines 6-8" in norm
    assert "\n1. /app/http.py lines 4-8 (code) — class Client > class Client" in http


async def test_find_symbol_covers_every_folder_of_a_multiroot_workspace(
    tmp_path: Path, fakellm: FakeLLM
) -> None:
    front, back = tmp_path / "front", tmp_path / "back"
    write(front, {name: text for name, text in FILES.items() if name.startswith("web/")})
    write(back, {name: text for name, text in FILES.items() if not name.startswith("web/")})
    async with two_folders([front, back], settings_for(fakellm)) as (client, events):
        await events.wait_for(events.indexed("front/web/config.ts"))
        await events.wait_for(events.indexed("back/app/http.py"))
        fakellm.set_script(
            {
                "replies": [
                    find("parseConfig"),
                    find("parse_http_response"),
                    doc(action="text_response", text_response="found"),
                ]
            }
        )
        await client.protocol.send_request_async(AGENT_CHAT, {"message": "where?"})
        config, http = told(fakellm)
        assert "function parseConfig — /front/web/config.ts lines 3-5" in config
        assert "method Client.parse_http_response — /back/app/http.py lines 7-8" in http
