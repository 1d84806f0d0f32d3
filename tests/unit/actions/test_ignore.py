"""The one in-process ignore matcher (actions.files.ignore) gives exactly git's verdicts.

Random repositories (fixed seeds): nested .gitignore files, .git/info/exclude, a
core.excludesFile, negations, folder patterns, anchored and `**` patterns, escapes, and
tracked files that rules would ignore; existing and not-yet-created paths. Each verdict of
`RepoIgnore` (the checkpoint store's) is compared with real git's, run on the same tree.
So are the listing's walk (a folder outside git, listed as `git ls-files` lists it once the
folder is made a repository) and a folder tree's verdicts (the index's single-file updates).
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from actions.checkpoints import CheckpointRefused, CheckpointStore
from actions.files.ignore import IgnoreTree, RepoIgnore
from actions.files.listing import walk_files

DIRS = ["", "src", "src/lib", "src/gen", "build", "docs", "docs/api", "logs", "a/b/c", "a/b"]
NAMES = [
    "keep.log",
    "x.log",
    "a.txt",
    "b.txt",
    "c.py",
    "ab.py",
    "important.tmp",
    "z.tmp",
    "root.txt",
    "deep.txt",
    "x.txt",
    "m.o",
    "#hash",
    "space name",
    "f~",
    "gen.c",
    "ref.md",
    "Makefile",
]
PATTERNS = [
    "*.log",
    "!keep.log",
    "build/",
    "/root.txt",
    "**/deep.txt",
    "a/**/x.txt",
    "*.tmp",
    "!important.tmp",
    "docs/*",
    "!docs/api/",
    "lib",
    "[ab].txt",
    "?.py",
    "\\#hash",
    "*.o",
    "!*.o/",
    "/src/gen/",
    "c/",
    "**/logs",
    "space\\ name",
    "*~",
    "# a comment",
    "",
    "!src/lib/m.o",
    "*.md",
    "!ref.md",
    "b/",
    "gen.*",
    "/*.txt",
    "src/**",
    "!src/lib/",
    "!Makefile",
]
UNANCHORED = ["*", "!*/", "**", "!**/", "*/", "**/b/**", "a/**/b", "a/b", "/a", "!*.py", "src/*.c"]


def git(root: Path, *args: str, data: bytes = b"") -> bytes:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    done = subprocess.run(
        ["git", *args], cwd=root, input=data, capture_output=True, env=env, check=False
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def generate(root: Path, rng: random.Random, home: Path) -> list[str]:
    """A repository with random ignore rules; returns candidate paths (some not created)."""
    root.mkdir()
    git(root, "init", "-q")
    for folder in rng.sample(DIRS, rng.randrange(1, len(DIRS))):
        (root / folder).mkdir(parents=True, exist_ok=True)
        lines = rng.sample(PATTERNS, rng.randrange(0, 6))
        (root / folder / ".gitignore").write_text("\n".join(lines) + "\n")
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("\n".join(rng.sample(PATTERNS, 3)) + "\n")
    excludes = home / f"excludes-{rng.randrange(10**6)}"
    excludes.write_text("\n".join(rng.sample(PATTERNS, 2)) + "\n")
    git(root, "config", "core.excludesFile", str(excludes))
    paths = sorted(
        {f"{folder}/{name}".lstrip("/") for folder in DIRS for name in rng.sample(NAMES, 6)}
    )
    for path in rng.sample(paths, len(paths) // 2):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(path)
    created = [p for p in paths if (root / p).is_file()]
    tracked = rng.sample(created, min(5, len(created)))
    if tracked:
        git(root, "add", "-f", "--", *tracked)
    return paths


def git_verdicts(root: Path, paths: list[str]) -> set[str]:
    data = b"".join(path.encode() + b"\0" for path in paths)
    out = git(root, "check-ignore", "-z", "--stdin", data=data)
    return {name.decode() for name in out.split(b"\0") if name}


@pytest.mark.parametrize("seed", range(40))
def test_matches_git_check_ignore(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "repo"
    paths = generate(root, random.Random(seed), tmp_path)
    expected = git_verdicts(root, paths)
    assert RepoIgnore(root).ignored(paths) == expected


def test_global_ignore_file_at_its_default_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    (tmp_path / "xdg" / "git").mkdir(parents=True)
    (tmp_path / "xdg" / "git" / "ignore").write_text("*.secretlog\n")
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    paths = ["a.secretlog", "b.txt", "sub/c.secretlog"]
    assert git_verdicts(root, paths) == {"a.secretlog", "sub/c.secretlog"}
    assert RepoIgnore(root).ignored(paths) == {"a.secretlog", "sub/c.secretlog"}


def test_rules_are_reread_when_a_gitignore_changes(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    (ws / ".gitignore").write_text("*.log\n")
    store = CheckpointStore(ws, store_dir=tmp_path / "store")
    with pytest.raises(CheckpointRefused, match=r"ignored by \.gitignore"):
        store.begin_plan(description="p", session_id="s", paths=["out.log"])
    (ws / ".gitignore").write_text("*.tmp\n")
    store.begin_plan(description="p", session_id="s", paths=["out.log"]).rollback()
    (ws / "sub").mkdir()
    (ws / "sub" / ".gitignore").write_text("*.log\n")
    with pytest.raises(CheckpointRefused, match=r"ignored by \.gitignore"):
        store.begin_plan(description="p", session_id="s", paths=["sub/out.log"])


def test_a_workspace_below_the_repository_root_uses_the_root_rules(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "packages" / "app").mkdir(parents=True)
    git(root, "init", "-q")
    (root / ".gitignore").write_text("dist/\n")
    (root / "packages" / ".gitignore").write_text("*.cache\n!keep.cache\n")
    store = CheckpointStore(root / "packages" / "app", store_dir=tmp_path / "store")
    for refused in ("dist/a.js", "x.cache"):
        with pytest.raises(CheckpointRefused, match="ignored"):
            store.begin_plan(description="p", session_id="s", paths=[refused])
    store.begin_plan(description="p", session_id="s", paths=["keep.cache", "src/a.js"]).rollback()


@pytest.mark.parametrize(
    "rules",
    [
        "*\n!*/\n!*.py\n",  # a whitelist: every folder re-included, only .py files kept
        "*/\n",  # every folder
        "src/**\n!src/keep/**\n",
        "**\n!**/\n!*.txt\n",
    ],
)
def test_unanchored_patterns_match_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rules: str
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "repo"
    paths = ["a.py", "a.txt", "src/b.py", "src/b.txt", "src/keep/c.py", "src/deep/d/e.txt"]
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(path)
    git(root, "init", "-q")
    (root / ".gitignore").write_text(rules)
    assert RepoIgnore(root).ignored(paths) == git_verdicts(root, paths)


def random_tree(root: Path, rng: random.Random) -> list[str]:
    """A folder with random .gitignore files (all patterns, unanchored ones too) and every
    candidate file created; returns the candidates."""
    root.mkdir()
    for folder in rng.sample(DIRS, rng.randrange(1, len(DIRS))):
        (root / folder).mkdir(parents=True, exist_ok=True)
        lines = rng.sample(PATTERNS + UNANCHORED, rng.randrange(0, 7))
        (root / folder / ".gitignore").write_text("\n".join(lines) + "\n")
    paths = sorted({f"{folder}/{name}".lstrip("/") for folder in DIRS for name in NAMES})
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(path)
    return paths


@pytest.mark.parametrize("seed", range(30))
def test_the_walk_lists_what_git_lists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "folder"
    random_tree(root, random.Random(seed))
    walked = walk_files(root, "", lambda _: False, 10_000)
    git(root, "init", "-q")
    listed = git(root, "ls-files", "-co", "--exclude-standard", "-z").split(b"\0")
    assert walked.source == "walk"
    assert sorted(walked.files) == sorted(name.decode() for name in listed if name)


@pytest.mark.parametrize("seed", range(30))
def test_a_folder_tree_matches_git_check_ignore(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "folder"
    paths = random_tree(root, random.Random(seed))
    tree = IgnoreTree(root)
    git(root, "init", "-q")
    assert {path for path in paths if tree.ignored(path)} == git_verdicts(root, paths)
