"""search_files, list_files and the index over hostile symlinks, in a git work tree (git
lists each symlink as a file) and in a plain folder (the walk lists a symlinked folder and
never enters it): no target outside the workspace, in .git or secret is ever read."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from actions.index.files import FileSet, IndexConfig
from actions.paths import Workspace
from actions.tools.list_files import ListFiles
from actions.tools.search_files import SearchFiles

PRIVATE = "TOKEN-private"


@pytest.fixture(params=["git", "walk"])
def root(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.txt").write_text(f"{PRIVATE} outside\n")
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("TOKEN = 'public'\n")
    (root / ".env").write_text(f"{PRIVATE}=1\n")
    os.symlink(outside / "x.txt", root / "src" / "link.txt")
    os.symlink(outside, root / "outdir")
    os.symlink("../.env", root / "src" / "env.txt")
    os.symlink("..", root / "src" / "up")  # a loop back to the root
    if request.param == "git":
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    return root


async def test_search_files_names_the_symlinks_it_did_not_follow(root: Path) -> None:
    result = await SearchFiles(Workspace(root)).execute({"pattern": "TOKEN"})
    assert PRIVATE not in result.text
    assert "/src/a.py:1: TOKEN = 'public'" in result.text
    skipped = {item["path"]: item["reason"] for item in result.data["skipped"]}
    assert skipped["/src/link.txt"] == "symlink 'src/link.txt' points outside the workspace"
    assert skipped["/outdir"] == "symlink 'outdir' points outside the workspace"
    assert skipped["/src/env.txt"].startswith("symlink 'src/env.txt' points to '.env': matches")


async def test_list_files_withholds_them(root: Path) -> None:
    result = await ListFiles(Workspace(root)).execute({})
    assert result.data["symlinksWithheld"] == 3
    assert "/src/link.txt" not in result.text
    assert "/src/a.py" in result.text


async def test_the_index_records_them_failed_unread(root: Path) -> None:
    files = FileSet(Workspace(root), IndexConfig())
    reads = {}
    for path in await files.list():
        info = files.stat(path)
        assert info is not None
        reads[path] = files.read(path, info)
    assert reads["src/a.py"].text == "TOKEN = 'public'\n"
    for path in ("src/link.txt", "src/env.txt"):
        assert reads[path].text is None
        assert reads[path].reason.startswith(f"refused: symlink '{path}' points")
