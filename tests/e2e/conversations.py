"""Scripted model conversations and workspace snapshots shared by the end-to-end tests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

SEED_FILES = {
    "src/app.py": "print('v1')\n",
    "src/util.py": "def helper():\n    return 1\n",
    "old.txt": "obsolete\n",
}


def seed_project(root: Path) -> Path:
    """The small project every plan conversation works on (`SEED_FILES` under `root`)."""
    for relative, text in SEED_FILES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


def doc(**document: Any) -> str:
    return json.dumps(document)


def fenced(**document: Any) -> str:
    return "Here is my next step.\n```json\n" + json.dumps(document, indent=2) + "\n```\n"


def tool(name: str, **args: Any) -> str:
    return doc(action="tool_call", tool_call={"function_name": name, "args": args})


def tree(root: Path) -> dict[str, str]:
    """Every file of the work tree (the user's .git excluded) with its exact content."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes().decode("utf-8", "surrogateescape")
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def tree_hash(root: Path) -> str:
    return hashlib.sha256(json.dumps(tree(root), sort_keys=True).encode()).hexdigest()


NEW_MODULE = 'def greet(name: str) -> str:\n    return f"Hello, {name}!"\n'
NEW_APP = "from src.new import greet\n\nprint(greet('world'))\n"

FULL_CONVERSATION = [
    tool("list_files"),
    tool("read_file", paths=["/src/app.py", "src/util.py"]),
    fenced(
        action="start_multi_file",
        plan={
            "description": "Add a greeting module and use it",
            "files_to_modify": ["/src/new.py", "/src/app.py", "/old.txt"],
        },
        first_file={
            "action": "create_file",
            "file": {"path": "/src/new.py", "content": NEW_MODULE},
        },
        message="Creating the module...",
    ),
    doc(
        action="continue_multi_file",
        next_file={"action": "update_file", "file": {"path": "/src/app.py", "content": NEW_APP}},
        message="Using it in app.py",
    ),
    doc(
        action="continue_multi_file",
        next_file={"action": "delete_file", "file": {"path": "/old.txt"}},
        message="Removing the obsolete file",
    ),
    doc(action="text_response", text_response="Done: greet() lives in src/new.py."),
]
