"""What a command changes, found by git's stat cache (actions.change_scan) or, outside git, by a
full snapshot, recorded as one checkpoint that undo restores exactly.

Real shell commands run through `run_capturing` in real git repositories in temp folders;
undo goes through the real checkpoint store. Nothing mocked.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from actions.change_scan import GitScan
from actions.checkpoints import CheckpointStore
from actions.external_edits import run_capturing
from actions.held_files import Scope
from actions.paths import SecretPolicy, Workspace

GIT_ID = ["-c", "user.email=u@example.com", "-c", "user.name=User", "-c", "commit.gpgsign=false"]


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    done = subprocess.run(
        ["git", *GIT_ID, *args], cwd=repo, capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def files_of(root: Path) -> dict[str, tuple[bytes, bool]]:
    """Every file under root (bytes, executable) except the user's .git."""
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), os.access(p, os.X_OK))
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def committed(repo: Path, files: dict[str, str]) -> Path:
    """A repository whose `files` are committed."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q")
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start")
    return repo


async def run(root: Path, line: str, store: CheckpointStore | None = None) -> Run:
    """`line` run by sh in `root`, its changes recorded."""
    store = store or CheckpointStore(root, store_dir=root.parent / f"{root.name}-store")

    async def command() -> None:
        subprocess.run(["sh", "-c", line], cwd=root, check=True)

    _result, info, unrecorded = await run_capturing(
        Workspace(root), store, "session", "command", command
    )
    return Run(store, [] if info is None else list(info.files), unrecorded)


def uses_git(root: Path) -> bool:
    """Does the change scan of `root` ask git (not read every file)?"""
    scan = GitScan.take(Scope(Workspace(root), SecretPolicy()))
    if scan is None:
        return False
    scan.close()
    return True


@dataclass
class Run:
    store: CheckpointStore
    recorded: list[str]
    unrecorded: list[str]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return committed(
        tmp_path / "repo",
        {
            "a.txt": "alpha\n",
            "b.txt": "beta\n",
            "tool.sh": "echo hi\n",
            "src/app.py": "print('app')\n",
            ".gitignore": "build/\n*.log\n",
        },
    )


async def test_tracked_files_changed_created_deleted_are_undone_exactly(repo: Path) -> None:
    (repo / "tool.sh").chmod(0o755)
    git(repo, "add", "tool.sh")
    git(repo, "commit", "-q", "-m", "exec")
    before = files_of(repo)
    done = await run(
        repo, "echo more >> a.txt && rm b.txt && echo new > src/new.py && chmod -x tool.sh"
    )
    assert done.recorded == ["a.txt", "b.txt", "src/new.py", "tool.sh"]
    assert done.unrecorded == []
    done.store.undo()
    assert files_of(repo) == before


async def test_a_dirty_file_changed_again_comes_back_dirty(repo: Path) -> None:
    (repo / "a.txt").write_text("my own edit, not committed\n")
    (repo / "notes.txt").write_text("untracked notes\n")
    (repo / "gone.txt").write_text("untracked, deleted by the command\n")
    before = files_of(repo)
    done = await run(repo, "echo again >> a.txt && echo x > notes.txt && rm gone.txt")
    assert done.recorded == ["a.txt", "gone.txt", "notes.txt"]
    done.store.undo()
    assert files_of(repo) == before
    assert (repo / "a.txt").read_text() == "my own edit, not committed\n"


async def test_untouched_dirty_files_are_not_recorded(repo: Path) -> None:
    (repo / "a.txt").write_text("dirty\n")
    (repo / "scratch.txt").write_text("untracked\n")
    done = await run(repo, "echo x > new.txt")
    assert done.recorded == ["new.txt"]


async def test_ignored_and_secret_files_are_not_recorded(repo: Path) -> None:
    done = await run(
        repo,
        "mkdir build && echo o > build/out.o && echo l > run.log && echo K=1 > .env"
        " && echo key > id_rsa && echo c >> a.txt",
    )
    assert (done.recorded, done.unrecorded) == (["a.txt"], [])
    done.store.undo()
    assert (repo / ".env").read_text() == "K=1\n"  # never copied, so never taken back
    assert (repo / "build/out.o").exists()


async def test_workspace_in_a_subfolder_of_the_repository(tmp_path: Path) -> None:
    repo = committed(
        tmp_path / "repo",
        {"top.txt": "top\n", "pkg/ws/a.txt": "a\n", "pkg/ws/deep/b.txt": "b\n", "pkg/c.txt": "c\n"},
    )
    root = repo / "pkg" / "ws"
    (root / "deep" / "b.txt").write_text("dirty b\n")
    before = files_of(root)
    done = await run(
        root,
        "echo x >> a.txt && echo y >> deep/b.txt && echo n > new.txt"
        " && echo out >> ../c.txt && echo top >> ../../top.txt",
    )
    assert done.recorded == ["a.txt", "deep/b.txt", "new.txt"]
    done.store.undo()
    assert files_of(root) == before
    assert (repo / "pkg/c.txt").read_text() == "c\nout\n"  # outside the workspace: left alone


@pytest.mark.parametrize("staged", [True, False], ids=["files-staged", "empty-index"])
async def test_a_repository_without_commits(tmp_path: Path, staged: bool) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q")
    (root / "a.txt").write_text("a\n")
    (root / "b.txt").write_text("b\n")
    if staged:
        git(root, "add", "a.txt")
    assert uses_git(root)
    before = files_of(root)
    done = await run(root, "echo x >> a.txt && rm b.txt && echo c > c.txt")
    assert done.recorded == ["a.txt", "b.txt", "c.txt"]
    done.store.undo()
    assert files_of(root) == before


async def test_outside_git_every_file_is_compared(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("a\n")
    (root / "sub/b.txt").write_text("b\n")
    (root / ".gitignore").write_text("*.log\n")
    assert not uses_git(root)
    before = files_of(root)
    done = await run(root, "echo x >> a.txt && rm sub/b.txt && echo n > n.txt && echo l > x.log")
    assert done.recorded == ["a.txt", "n.txt", "sub/b.txt"]
    done.store.undo()
    assert files_of(root) == {**before, "x.log": (b"l\n", False)}


def index_state(repo: Path) -> tuple[str, list[str]]:
    git_dir = repo / ".git"
    index = hashlib.sha256((git_dir / "index").read_bytes()).hexdigest()
    return index, sorted(p.relative_to(git_dir).as_posix() for p in git_dir.rglob("*"))


async def test_the_users_index_is_never_written(repo: Path) -> None:
    os.utime(repo / "b.txt", (1_000_000, 1_000_000))  # stat-dirty: a refresh would rewrite
    (repo / "a.txt").write_text("dirty\n")
    state = index_state(repo)
    done = await run(repo, "echo x >> b.txt && echo y > new.txt")
    assert done.recorded == ["b.txt", "new.txt"]
    assert index_state(repo) == state
    done.store.undo()
    assert index_state(repo) == state


async def test_what_a_command_commits_is_still_undone(repo: Path) -> None:
    before = files_of(repo)
    id_flags = " ".join(GIT_ID)
    done = await run(
        repo, f"echo x >> a.txt && echo n > n.txt && git add -A && git {id_flags} commit -qm c"
    )
    assert done.recorded == ["a.txt", "n.txt"]
    done.store.undo()
    assert files_of(repo) == before


def rewrite_keeping_size_and_mtime(path: Path) -> str:
    """A command (python) replacing the file's bytes with as many others, mtime restored."""
    return (
        f'{sys.executable} -c "import os,sys; p=sys.argv[1]; s=os.stat(p); '
        "t=open(p).read().upper(); open(p,'w').write(t); "
        f'os.utime(p, ns=(s.st_atime_ns, s.st_mtime_ns))" {path}'
    )


async def test_same_size_and_mtime_change_of_a_clean_file_seen_by_ctime(repo: Path) -> None:
    old = 1_700_000_000
    os.utime(repo / "a.txt", (old, old))
    git(repo, "update-index", "-q", "--refresh")  # clean, long before the index: not racy
    while int(time.time()) <= int(os.stat(repo / "a.txt").st_ctime):
        time.sleep(0.05)  # git compares whole seconds of ctime: the change lands in a later one
    done = await run(repo, rewrite_keeping_size_and_mtime(Path("a.txt")))
    assert (repo / "a.txt").read_text() == "ALPHA\n"
    assert done.recorded == ["a.txt"]
    done.store.undo()
    assert (repo / "a.txt").read_text() == "alpha\n"


async def test_same_size_and_mtime_change_in_the_racy_window(repo: Path) -> None:
    git(repo, "config", "core.trustctime", "false")
    git(repo, "config", "core.checkStat", "minimal")  # only size and mtime compared
    old = 1_700_000_000
    os.utime(repo / "a.txt", (old, old))
    git(repo, "update-index", "-q", "--refresh")  # the entry: clean, its stat recorded
    os.utime(repo / ".git" / "index", (old, old))  # as if written in the file's second: racy
    done = await run(repo, rewrite_keeping_size_and_mtime(Path("a.txt")))
    assert done.recorded == ["a.txt"]
    done.store.undo()
    assert (repo / "a.txt").read_text() == "alpha\n"


async def test_assume_unchanged_and_skip_worktree_files_are_compared(repo: Path) -> None:
    git(repo, "update-index", "--assume-unchanged", "a.txt")
    git(repo, "update-index", "--skip-worktree", "b.txt")
    before = files_of(repo)
    done = await run(repo, "echo x >> a.txt && echo y >> b.txt")
    assert done.recorded == ["a.txt", "b.txt"]
    done.store.undo()
    assert files_of(repo) == before


async def test_a_file_checked_out_with_crlf_comes_back_with_crlf(tmp_path: Path) -> None:
    repo = committed(tmp_path / "repo", {".gitattributes": "*.bat eol=crlf\n", "run.bat": "a\nb\n"})
    (repo / "run.bat").unlink()
    git(repo, "checkout", "--", "run.bat")
    assert (repo / "run.bat").read_bytes() == b"a\r\nb\r\n"
    done = await run(repo, "printf 'c\\r\\n' >> run.bat")
    assert done.recorded == ["run.bat"]
    done.store.undo()
    assert (repo / "run.bat").read_bytes() == b"a\r\nb\r\n"


async def test_a_big_file_is_reported_only_when_it_changed(repo: Path) -> None:
    big = b"x" * (6 * 2**20)
    (repo / "big.bin").write_bytes(big)
    (repo / "other.bin").write_bytes(big)
    done = await run(repo, "echo x >> a.txt")
    assert (done.recorded, done.unrecorded) == (["a.txt"], [])
    done = await run(repo, "echo x >> big.bin", done.store)
    assert (done.recorded, done.unrecorded) == ([], ["big.bin (too large to keep a copy)"])


async def test_a_file_turned_into_a_folder_is_reported_not_recorded(repo: Path) -> None:
    done = await run(repo, "rm b.txt && mkdir b.txt && echo in > b.txt/in.txt && echo x >> a.txt")
    assert done.recorded == ["a.txt", "b.txt/in.txt"]
    assert done.unrecorded == ["b.txt (is not a regular file)"]


async def test_with_autocrlf_a_file_comes_back_as_checked_out(tmp_path: Path) -> None:
    repo = committed(tmp_path / "repo", {"notes.txt": "a\nb\n", "data.bin": "x\0y\n"})
    git(repo, "config", "core.autocrlf", "true")
    for name in ("notes.txt", "data.bin"):
        (repo / name).unlink()
    git(repo, "checkout", "--", ".")
    before = files_of(repo)
    assert before["notes.txt"] == (b"a\r\nb\r\n", False)
    done = await run(repo, "echo c >> notes.txt && echo z >> data.bin")
    assert done.recorded == ["data.bin", "notes.txt"]
    done.store.undo()
    assert files_of(repo) == before


async def test_a_workspace_reached_through_a_symbolic_link(repo: Path, tmp_path: Path) -> None:
    (repo / "src/dirty.py").write_text("untracked\n")
    link = tmp_path / "link"
    link.symlink_to(repo / "src")
    assert uses_git(link)
    before = files_of(link)
    done = await run(link, "echo x >> app.py && echo y >> dirty.py")
    assert done.recorded == ["app.py", "dirty.py"]
    done.store.undo()
    assert files_of(link) == before
