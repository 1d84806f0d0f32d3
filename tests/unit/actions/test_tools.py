"""Built-in tools through the registry, on real temp folders and real git repositories."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from actions.errors import ToolNotFound
from actions.paths import Workspace
from actions.tools import (
    ListFilesConfig,
    ReadFileConfig,
    Tool,
    ToolRegistry,
    ToolResult,
    default_registry,
)

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def write(root: Path, files: Mapping[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def git(root: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)


PROJECT = {
    ".gitignore": "*.log\nbuild/\n!keep.log\n",
    "src/App.jsx": "export default App\n",
    "src/stores/useFileStore.js": "store\n",
    "src/debug.log": "noise\n",
    "keep.log": "kept\n",
    "build/out.js": "built\n",
    "docs/sub/.gitignore": "draft.md\n",
    "docs/sub/draft.md": "draft\n",
    "docs/sub/final.md": "final\n",
    "node_modules/react/index.js": "react\n",
    ".env": "KEY=secret\n",
    ".checkpoints/journal.json": "{}\n",
}


@pytest.fixture(params=["git", "walk"])
def project(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    write(root, PROJECT)
    if request.param == "git":
        if shutil.which("git") is None:
            pytest.skip("git is not installed")
        git(root, "init", "-q")
        git(root, "add", "src/App.jsx", ".gitignore")
    return root


def registry_for(root: Path, **kwargs: Any) -> ToolRegistry:
    return default_registry(Workspace(root, extra_denied=[root / ".checkpoints"]), **kwargs)


async def test_list_files_honours_gitignore_and_the_deny_list(project: Path) -> None:
    result = await registry_for(project).call("list_files", {})
    assert result.ok, result.text
    lines = result.text.splitlines()
    for expected in [
        "/src/",
        "/src/App.jsx",
        "/src/stores/",
        "/src/stores/useFileStore.js",
        "/keep.log",
        "/docs/sub/final.md",
        "/.gitignore",
    ]:
        assert expected in lines
    assert "/.env" not in lines
    assert lines[-1].startswith("(1 secret file(s) not listed")
    text = result.text
    for absent in ["debug.log", "build", "draft.md", "node_modules", ".git/", ".checkpoints"]:
        assert absent not in text
    assert lines.index("/src/") < lines.index("/src/App.jsx") < lines.index("/src/stores/")
    assert result.data["paths"][0].startswith("/")


@pytest.mark.parametrize("kind", ["git", "walk"])
async def test_list_files_keeps_what_a_whitelisting_gitignore_keeps(
    tmp_path: Path, kind: str
) -> None:
    """`*` ignores everything, `!*/` re-includes every folder, `!*.py` the Python files: in a
    git work tree or not, the same files are listed (git's own listing is the reference)."""
    root = tmp_path / "proj"
    root.mkdir()
    write(root, {".gitignore": "*\n!*/\n!*.py\n", "src/a.py": "a\n", "src/b.txt": "b\n"})
    write(root, {"c.py": "c\n", "src/deep/d.py": "d\n"})
    if kind == "git":
        git(root, "init", "-q")
    result = await registry_for(root).call("list_files", {})
    assert result.ok, result.text
    files = [line for line in result.text.splitlines() if not line.endswith("/")]
    assert sorted(files) == ["/c.py", "/src/a.py", "/src/deep/d.py"]


async def test_list_files_of_one_folder(project: Path) -> None:
    result = await registry_for(project).call("list_files", {"path": "/src/stores"})
    assert result.ok
    assert result.text.splitlines() == ["/src/stores/useFileStore.js"]
    src = await registry_for(project).call("list_files", {"path": "src"})
    assert src.text.splitlines() == ["/src/App.jsx", "/src/stores/", "/src/stores/useFileStore.js"]


@needs_git
async def test_workspace_in_a_subfolder_of_a_git_repo(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "*.tmp\n", "other/x.txt": "", "ws/a.py": "", "ws/b.tmp": ""})
    git(tmp_path, "init", "-q")
    result = await registry_for(tmp_path / "ws").call("list_files", {})
    assert result.data["source"] == "git"
    assert result.text.splitlines() == ["/a.py"]


@needs_git
async def test_git_variables_inherited_by_the_server_do_not_redirect_the_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, {"ws/.gitignore": "*.tmp\n", "ws/a.py": "", "ws/b.tmp": "", "other/z.py": ""})
    git(tmp_path / "ws", "init", "-q")
    git(tmp_path / "other", "init", "-q")
    git(tmp_path / "other", "add", "-A")
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "other" / ".git"))  # e.g. run from a hook
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "other" / ".git" / "index"))
    result = await registry_for(tmp_path / "ws").call("list_files", {})
    assert result.data["source"] == "git"
    assert result.text.splitlines() == ["/.gitignore", "/a.py"]


@needs_git
async def test_list_files_drops_tracked_files_deleted_from_disk(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "a", "b.txt": "b"})
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    (tmp_path / "b.txt").unlink()
    result = await registry_for(tmp_path).call("list_files", {})
    assert result.text.splitlines() == ["/a.txt"]
    assert result.data["source"] == "git"


async def test_list_files_without_git_walks(tmp_path: Path) -> None:
    write(tmp_path, {"x.py": "", ".gitignore": "*.tmp\n", "y.tmp": ""})
    result = await registry_for(tmp_path).call("list_files", {})
    assert result.data["source"] == "walk"
    assert result.text.splitlines() == ["/.gitignore", "/x.py"]


async def test_list_files_truncates_keeping_the_shallowest(tmp_path: Path) -> None:
    write(tmp_path, {f"deep/nested/f{i:02}.txt": "" for i in range(30)})
    write(tmp_path, {"top.txt": ""})
    registry = registry_for(tmp_path, list_config=ListFilesConfig(max_entries=10))
    result = await registry.call("list_files", {})
    lines = result.text.splitlines()
    assert lines[:3] == ["/deep/", "/deep/nested/", "/deep/nested/f00.txt"]
    assert "/top.txt" in lines
    assert len(lines) == 11
    assert lines[-1].startswith("(truncated: 23 more paths not shown")
    assert result.data["truncated"] == 23


async def test_list_files_of_a_missing_folder_is_an_error(tmp_path: Path) -> None:
    result = await registry_for(tmp_path).call("list_files", {"path": "/nope"})
    assert not result.ok
    assert "/nope does not exist" in result.text


async def test_read_one_file(project: Path) -> None:
    result = await registry_for(project).call("read_file", {"path": "/src/App.jsx"})
    assert result.ok
    assert result.text == "=== /src/App.jsx (19 bytes) ===\n```\nexport default App\n```"
    assert result.data["files"][0]["content"] == "export default App\n"


async def test_read_batch_reports_each_path_without_failing(project: Path) -> None:
    write(project, {"img.png": b"\x89PNG\r\n\x1a\n\x00\x00", "latin.txt": b"caf\xe9\n"})
    paths = ["/src/App.jsx", "/nope.js", "/src", "/.env", "../x", "/img.png", "/latin.txt"]
    result = await registry_for(project).call("read_file", {"paths": paths})
    assert result.ok
    statuses = {f["path"]: (f["status"], f["note"]) for f in result.data["files"]}
    assert statuses["/src/App.jsx"] == ("ok", "")
    assert statuses["/nope.js"] == ("missing", "no such file")
    assert statuses["/src"][0] == "not_a_file"
    assert statuses["/.env"][0] == "refused"
    assert "secret deny list" in statuses["/.env"][1]
    assert "climbs above" in statuses["../x"][1]
    assert statuses["/img.png"] == ("binary", "binary file, not shown")
    assert statuses["/latin.txt"][0] == "binary"
    assert "PNG" not in result.text
    assert "KEY=secret" not in result.text


async def test_read_file_all_failed_is_an_error_result(tmp_path: Path) -> None:
    result = await registry_for(tmp_path).call("read_file", {"paths": ["/a", "/b"]})
    assert not result.ok
    assert "=== /a — no such file ===" in result.text


async def test_read_file_truncates_per_file_at_a_line_boundary(tmp_path: Path) -> None:
    write(tmp_path, {"big.txt": "".join(f"line {i:04}\n" for i in range(100))})
    registry = registry_for(tmp_path, read_config=ReadFileConfig(per_file_bytes=105))
    result = await registry.call("read_file", {"path": "big.txt"})
    report = result.data["files"][0]
    assert report["status"] == "truncated"
    assert report["content"] == "".join(f"line {i:04}\n" for i in range(10))
    assert (
        "lines 1-10 of 100; cut at the per-file limit: showing 100 of 1000 bytes"
        in (report["note"])
    )
    assert "read the rest with start_line 11" in result.text
    assert "    10\tline 0009\n```" in result.text  # a page is numbered


NUMBERED_FILE = "".join(f"row {n}\n" for n in range(1, 31))


@pytest.mark.parametrize(
    ("args", "shown", "note"),
    [
        ({"path": "n.txt", "start_line": 5, "end_line": 7}, [5, 6, 7], "lines 5-7 of 30"),
        ({"path": "n.txt", "start_line": 29}, [29, 30], "lines 29-30 of 30"),
        ({"path": "n.txt", "end_line": 2}, [1, 2], "lines 1-2 of 30"),
        ({"path": "n.txt", "start_line": 28, "end_line": 99}, [28, 29, 30], "lines 28-30 of 30"),
        ({"paths": [{"path": "n.txt", "start_line": 3, "end_line": 3}]}, [3], "lines 3-3 of 30"),
    ],
)
async def test_read_file_ranges_come_back_numbered(
    tmp_path: Path, args: dict[str, Any], shown: list[int], note: str
) -> None:
    write(tmp_path, {"n.txt": NUMBERED_FILE})
    result = await registry_for(tmp_path).call("read_file", args)
    assert result.ok, result.text
    assert "=== /n.txt (" in result.text
    assert note in result.text
    body = result.text.split("```\n", 1)[1].rsplit("```", 1)[0]
    assert body == "".join(f"{n:>6}\trow {n}\n" for n in shown)
    assert result.data["files"][0]["content"] == "".join(f"row {n}\n" for n in shown)


async def test_read_file_batch_mixes_whole_files_and_ranges(tmp_path: Path) -> None:
    write(tmp_path, {"n.txt": NUMBERED_FILE, "a.txt": "alpha\n"})
    paths = ["a.txt", {"path": "n.txt", "start_line": 10, "end_line": 11}]
    result = await registry_for(tmp_path).call("read_file", {"paths": paths})
    assert "```\nalpha\n```" in result.text  # whole file: exact, not numbered
    assert "    10\trow 10\n    11\trow 11\n" in result.text


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({"path": "n.txt", "start_line": 50}, "start_line 50 is past the end of the file (30"),
        ({"path": "n.txt", "start_line": 0}, "args.start_line: expected a value >= 1"),
        ({"path": "n.txt", "start_line": 9, "end_line": 3}, "args.end_line: must be >= start_line"),
        ({"paths": ["n.txt"], "start_line": 2}, 'give lines per file: {"path"'),
    ],
)
async def test_read_file_bad_ranges_are_reported(
    tmp_path: Path, args: dict[str, Any], problem: str
) -> None:
    write(tmp_path, {"n.txt": NUMBERED_FILE})
    result = await registry_for(tmp_path).call("read_file", args)
    assert not result.ok
    assert problem in result.text


async def test_read_file_pages_a_large_range_and_says_where_to_continue(tmp_path: Path) -> None:
    write(tmp_path, {"n.txt": NUMBERED_FILE})
    registry = registry_for(tmp_path, read_config=ReadFileConfig(per_file_bytes=30))
    result = await registry.call("read_file", {"path": "n.txt", "start_line": 20})
    report = result.data["files"][0]
    assert report["status"] == "truncated"
    assert (report["first_line"], report["last_line"]) == (20, 23)  # 4 lines of 7 bytes
    assert "read the rest with start_line 24" in result.text


async def test_read_file_never_cuts_a_character(tmp_path: Path) -> None:
    write(tmp_path, {"u.txt": "é" * 10})
    registry = registry_for(tmp_path, read_config=ReadFileConfig(per_file_bytes=5))
    result = await registry.call("read_file", {"path": "u.txt"})
    assert result.data["files"][0]["content"] == "éé"


async def test_read_file_batch_limit_skips_the_rest(tmp_path: Path) -> None:
    write(tmp_path, {f"f{i}.txt": "x" * 40 + "\n" for i in range(4)})
    config = ReadFileConfig(per_file_bytes=1000, per_batch_bytes=100)
    registry = registry_for(tmp_path, read_config=config)
    paths = [f"f{i}.txt" for i in range(4)]
    result = await registry.call("read_file", {"paths": paths})
    statuses = [f["status"] for f in result.data["files"]]
    assert statuses == ["ok", "ok", "truncated", "skipped"]
    assert "batch limit" in result.data["files"][2]["note"]
    assert "read it in another call" in result.text


async def test_read_file_fence_outlasts_backticks_in_content(tmp_path: Path) -> None:
    write(tmp_path, {"README.md": "```py\nx\n```\n"})
    result = await registry_for(tmp_path).call("read_file", {"path": "README.md"})
    assert result.text.endswith("````\n```py\nx\n```\n````")


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("read_file", {}, "read_file: args: expected exactly one of 'path', 'paths'; got none"),
        (
            "read_file",
            {"path": "/a", "paths": ["/b"]},
            "expected exactly one of 'path', 'paths'; got 'path' and 'paths'",
        ),
        (
            "read_file",
            {"paths": ["/a", 3]},
            "read_file: args.paths[1]: expected a string or an object; got 3",
        ),
        ("read_file", {"paths": []}, "args.paths: must not be empty"),
        ("read_file", {"path": "/a", "mode": "r"}, "args.mode: unexpected field; allowed"),
        ("read_file", ["/a"], "read_file: args: expected an object; got an array"),
        ("list_files", {"path": 7}, "list_files: args.path: expected a string; got 7"),
    ],
)
async def test_bad_arguments_name_the_field(
    tmp_path: Path, name: str, args: Any, expected: str
) -> None:
    result = await registry_for(tmp_path).call(name, args)
    assert not result.ok
    assert result.error_kind == "invalid_tool_call"
    assert expected in result.text


async def test_unknown_tool_lists_the_valid_ones(tmp_path: Path) -> None:
    registry = registry_for(tmp_path)
    result = await registry.call("write_file", {})
    assert result.error_kind == "tool_not_found"
    assert result.text == (
        "unknown tool 'write_file'; valid tools: "
        "list_files, read_file, search_files, search_docs, find_symbol"
    )
    with pytest.raises(ToolNotFound):
        registry.get("write_file")


class Exploding:
    name = "boom"

    async def execute(self, args: Mapping[str, Any]) -> ToolResult:
        raise RuntimeError("kaput")


async def test_a_crashing_tool_becomes_an_error_result() -> None:
    registry = ToolRegistry()
    registry.register(Tool("boom", "explodes", {"type": "object"}), Exploding())
    result = await registry.call("boom", {})
    assert not result.ok
    assert result.error_kind == "tool_execution_error"
    assert "kaput" in result.text


def test_manifests_are_immutable_data(tmp_path: Path) -> None:
    registry = registry_for(tmp_path)
    manifest = registry.manifests()[1]
    assert manifest.name == "read_file"
    manifest.parameters["properties"].clear()
    assert "paths" in registry.manifests()[1].parameters["properties"]
    assert manifest.to_dict()["parameters"]["oneOf"][0] == {"required": ["path"]}
    with pytest.raises(AttributeError):
        manifest.name = "x"  # type: ignore[misc]


def test_register_refuses_duplicates_and_mismatched_names() -> None:
    registry = ToolRegistry()
    registry.register(Tool("boom", "d", {}), Exploding())
    with pytest.raises(ValueError, match="already registered"):
        registry.register(Tool("boom", "d", {}), Exploding())
    with pytest.raises(ValueError, match="!="):
        registry.register(Tool("bang", "d", {}), Exploding())
