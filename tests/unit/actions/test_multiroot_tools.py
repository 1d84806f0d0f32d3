"""The built-in tools over two real folders (actions/tools/multiroot.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from actions.paths import Workspace
from actions.roots import Roots
from actions.tools.multiroot import multiroot_registry


@pytest.fixture
def registry(tmp_path: Path):  # type: ignore[no-untyped-def]
    for name, files in {
        "front": {"src/app.ts": "const kumquat = 1;\n", ".env": "KEY=kumquat\n"},
        "back": {"api.py": "KUMQUAT = 2\n", "docs/readme.md": "nothing here\n"},
    }.items():
        for relative, text in files.items():
            (tmp_path / name / relative).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name / relative).write_text(text)
    roots = Roots.of([Workspace(tmp_path / "front"), Workspace(tmp_path / "back")])
    return multiroot_registry(roots, {})


async def test_list_files_covers_every_folder_qualified(registry) -> None:  # type: ignore[no-untyped-def]
    result = await registry.call("list_files", {})
    assert result.ok
    assert result.text.splitlines() == [
        "/front/",
        "/front/src/",
        "/front/src/app.ts",
        "(1 secret file(s) not listed: agent-ls does not read, list or write secret files "
        "unless the user allows them)",
        "/back/",
        "/back/api.py",
        "/back/docs/",
        "/back/docs/readme.md",
    ]
    assert result.data["secretsWithheld"] == 1
    one = await registry.call("list_files", {"path": "/back/docs"})
    assert one.text.splitlines() == ["/back/docs/readme.md"]


async def test_search_files_covers_every_folder_and_never_reads_secrets(registry) -> None:  # type: ignore[no-untyped-def]
    result = await registry.call("search_files", {"pattern": "kumquat"})
    assert result.text.splitlines() == [
        "/front/src/app.ts:1: const kumquat = 1;",
        "/back/api.py:1: KUMQUAT = 2",
    ]
    narrowed = await registry.call("search_files", {"pattern": "kumquat", "path": "/back"})
    assert narrowed.text.splitlines() == ["/back/api.py:1: KUMQUAT = 2"]


async def test_read_file_routes_each_path_and_reports_ambiguity(registry, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "back" / "src").mkdir()
    (tmp_path / "back" / "src" / "app.ts").write_text("other\n")
    result = await registry.call(
        "read_file", {"paths": ["/front/src/app.ts", "api.py", "src/app.ts"]}
    )
    statuses = [(f["path"], f["status"]) for f in result.data["files"]]
    assert statuses[:2] == [("/front/src/app.ts", "ok"), ("/back/api.py", "ok")]
    assert statuses[2] == ("src/app.ts", "refused")
    assert "/front/src/app.ts" in result.data["files"][2]["note"]
    assert "/back/src/app.ts" in result.data["files"][2]["note"]


async def test_tool_descriptions_name_the_folders(registry) -> None:  # type: ignore[no-untyped-def]
    for manifest in registry.manifests():
        assert "/front, /back" in manifest.description
