"""The VS Code client's constants.ts mirrors server/protocol.py: same names, same values."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = ROOT / "server" / "protocol.py"
CONSTANTS = ROOT / "vscode-client" / "src" / "constants.ts"
PACKAGE = ROOT / "vscode-client" / "package.json"
CONFIG = ROOT / "server" / "config.py"

_TS_CONST = re.compile(r'^export const ([A-Z][A-Z0-9_]*) = "([^"]*)";$', re.MULTILINE)


def python_constants() -> dict[str, str]:
    """Module-level UPPER_CASE string assignments of protocol.py."""
    tree = ast.parse(PROTOCOL.read_text())
    found: dict[str, str] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id.isupper()
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            found[node.targets[0].id] = node.value.value
    return found


def typescript_constants() -> dict[str, str]:
    return dict(_TS_CONST.findall(CONSTANTS.read_text()))


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


def test_every_protocol_name_is_mirrored_with_the_same_value() -> None:
    python = python_constants()
    typescript = typescript_constants()
    assert python, "no constants found in protocol.py"
    missing = sorted(set(python) - set(typescript))
    assert missing == [], f"constants.ts lacks {missing}"
    different = {k: (python[k], typescript[k]) for k in python if python[k] != typescript[k]}
    assert different == {}


def test_typescript_has_no_protocol_name_the_server_lacks() -> None:
    python = python_constants()
    typescript = typescript_constants()
    # Client-only names (view ids, URI schemes) are not protocol names.
    client_only = {"CHAT_VIEW_ID", "CHECKPOINT_SCHEME", "STAGED_SCHEME"}
    extra = sorted(set(typescript) - set(python) - client_only)
    assert extra == [], f"constants.ts has names protocol.py does not define: {extra}"


def test_every_server_setting_is_contributed_by_the_extension() -> None:
    section = typescript_constants()["CONFIG_SECTION"]
    properties = json.loads(PACKAGE.read_text())["contributes"]["configuration"]["properties"]
    contributed = {key.removeprefix(section + ".") for key in properties}
    assert config_keys() - contributed == set()
