"""The VS Code client's hand-written names: none of them shadows a protocol name (those come
from the generated protocol.ts), and every server setting is contributed by its package.json."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from server import protocol

ROOT = Path(__file__).resolve().parents[2]
CONSTANTS = ROOT / "vscode-client" / "src" / "constants.ts"
PACKAGE = ROOT / "vscode-client" / "package.json"
CONFIG = ROOT / "server" / "config.py"

_TS_CONST = re.compile(r"^export const ([A-Za-z][A-Za-z0-9_]*) =", re.MULTILINE)


def config_keys() -> set[str]:
    """Field names of server.config.Config, read from the source (the agentLs.* keys)."""
    tree = ast.parse(CONFIG.read_text())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Config":
            return {
                item.target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            }
    raise AssertionError("server/config.py has no class Config")


def test_constants_ts_redeclares_no_protocol_name() -> None:
    declared = set(_TS_CONST.findall(CONSTANTS.read_text()))
    assert declared, "no constants found in constants.ts"
    protocol_names = {n for n, v in vars(protocol).items() if n.isupper() and isinstance(v, str)}
    assert declared & protocol_names == set(), "import them from the generated protocol.ts"


def test_every_server_setting_is_contributed_by_the_extension() -> None:
    section = protocol.CONFIG_SECTION
    properties = json.loads(PACKAGE.read_text())["contributes"]["configuration"]["properties"]
    contributed = {key.removeprefix(section + ".") for key in properties}
    assert config_keys() - contributed == set()
