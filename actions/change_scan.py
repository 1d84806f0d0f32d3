"""What a run changed in a git work tree, from git's stat cache instead of reading every file.

Before the run: the index is copied (its modification time kept, so git's racy-git rules apply
to the copy as to the original) into a private temporary folder, and every git command below
reads that copy (`GIT_INDEX_FILE`) with `GIT_OPTIONAL_LOCKS=0`: the user's `.git` is never
written, and whatever the run does to the index (`git add`, `git commit`, `git checkout`) does
not move the reference the run is compared with.
- `git status --porcelain -z --untracked-files=all` lists the dirty paths (changed, deleted,
  staged, unmerged, untracked; ignored files never): their bytes are held (`held_files.Held`).
- `git ls-files -s -v -z` gives each tracked file's mode and blob; entries git does not stat
  (assume-unchanged, skip-worktree) are held too.
After the run, `git status` against the same copy lists the paths now dirty. The candidates are
the dirty paths of both scans; a candidate held before compares with its held bytes, any other
tracked one with its index blob (`git cat-file --batch`, one process for all; through the
checkout filters, `git cat-file --filters`, for the paths whose attributes or `core.autocrlf`
convert them), an untracked one with "absent". Only what really differs is recorded.

A path git considers clean while its bytes are not what a checkout would write (LF endings with
`core.autocrlf=true`) gets the checkout's bytes back; a change that keeps size and modification
time with `core.trustctime=false` outside git's racy window is missed, as `git status` misses it.
Files inside nested repositories and submodules are not covered (as by the full snapshot).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import git

from actions.checkpoints.types import CheckpointError
from actions.files.gitenv import clean_git_env, repository_env, run_git
from actions.held_files import Baseline, Changes, FileImage, Held, Scope, diff

log = logging.getLogger(__name__)

GIT_TIMEOUT = 120.0
_ENTRY = re.compile(rb"(\S) ([0-7]{6}) ([0-9a-f]{40,64}) ([0-3])")
_REGULAR = {"100644": False, "100755": True}
_CONVERTING = ("filter", "ident", "working-tree-encoding", "eol", "text")
_LOOKUPS_BY_SEARCH = 64  # above this many candidates, parse the whole listing once


class GitFailed(Exception):
    """A git command of the scan failed (the caller falls back or reports it)."""


@dataclass
class GitScan:
    """A git work tree scanned before a run; `changes()` after it, `close()` in the end."""

    scope: Scope
    toplevel: Path
    prefix: str  # the workspace root relative to the work tree root: "" or "a/b/"
    env: dict[str, str]
    scratch: Path  # the private folder holding the index copy
    entries: bytes  # `git ls-files -s -v -z` of the copy, workspace-relative paths
    before: set[str]  # dirty (or not stat-checked) paths before the run
    held: Held

    @classmethod
    def take(cls, scope: Scope) -> GitScan | None:
        """The scan, or None when the workspace is not in a usable git work tree."""
        found = _work_tree(Path(os.path.realpath(scope.root)))  # a symlinked root too
        if found is None:
            return None
        toplevel, repo_env, index = found
        prefix = _prefix(scope.root, toplevel)
        if prefix is None:
            return None
        scratch = Path(tempfile.mkdtemp(prefix="agent-ls-scan-"))
        env = clean_git_env({**repo_env, **_private_index(index, scratch)})
        scan = cls(scope, toplevel, prefix, env, scratch, b"", set(), Held(scope.max_file_bytes))
        try:
            scan.scan_before()
        except (GitFailed, OSError) as exc:
            log.warning("git change scan unavailable in %s (reading every file): %s", toplevel, exc)
            scan.close()
            return None
        return scan

    @property
    def root(self) -> Path:
        return self.scope.root

    def scan_before(self) -> None:
        """List the dirty and the unchecked paths, hold their bytes."""
        listing = _start(["ls-files", "-s", "-v", "-z", "--", "."], self.env, self.root)
        try:
            dirty = self.status()
        finally:
            self.entries = _finish(listing)
        self.before = {
            path for path in (*dirty, *_unchecked(self.entries)) if self.scope.covers(path)
        }
        self.held.hold(self.root, sorted(self.before))

    def changes(self) -> Changes:
        """What the run changed since `take` (see the module)."""
        try:
            after = [path for path in self.status() if self.scope.covers(path)]
            return diff(self.root, [*self.before, *after], self.held, self.baseline)
        except GitFailed as exc:
            raise CheckpointError(f"could not tell what changed in {self.root}: {exc}") from exc

    def close(self) -> None:
        shutil.rmtree(self.scratch, ignore_errors=True)

    def status(self) -> list[str]:
        """The workspace's dirty paths against the index copy (workspace-relative)."""
        out = _git(
            [
                "status",
                "--porcelain",
                "-z",
                "--untracked-files=all",
                "--no-renames",
                "--ignore-submodules=all",
                "--",
                ".",
            ],
            self.env,
            self.root,
        )
        paths = []
        for raw in out.split(b"\0"):
            name = os.fsdecode(raw[3:])
            if len(raw) > 3 and not name.endswith("/") and name.startswith(self.prefix):
                paths.append(name[len(self.prefix) :])  # "dir/": an untracked nested repository
        return paths

    def baseline(self, paths: list[str]) -> Baseline:
        """The index images of `paths` (not held before: clean or untracked then)."""
        found = _lookup(self.entries, paths)
        images: dict[str, FileImage] = {path: None for path in paths}
        blobs = {path: entry for path, entry in found.items() if entry[0] in _REGULAR}
        converted = self._converted(sorted(blobs)) if blobs else set()
        unknown: set[str] = set()
        plain = {path: entry for path, entry in blobs.items() if path not in converted}
        contents = _cat_blobs([sha for _mode, sha in plain.values()], self.env, self.root)
        for path in sorted(blobs):
            mode, sha = blobs[path]
            data = contents.get(sha) if path in plain else self._filtered(path, sha)
            if data is None or len(data) > self.held.max_file_bytes:
                unknown.add(path)
                continue
            images[path] = (data, _REGULAR[mode])
        return Baseline(images, frozenset(unknown))

    def _converted(self, paths: Sequence[str]) -> set[str]:
        """The `paths` a checkout converts (filters, eol, ident, encoding, autocrlf)."""
        autocrlf, eol_crlf = _line_endings(self.env, self.root)
        data = b"".join(os.fsencode(self.prefix + path) + b"\0" for path in paths)
        out = _git(["check-attr", "-z", "--stdin", *_CONVERTING], self.env, self.toplevel, data)
        fields = out.split(b"\0")
        converted: set[str] = set()
        for at in range(0, len(fields) - 2, 3):
            name, attribute, value = (os.fsdecode(part) for part in fields[at : at + 3])
            if _converts(attribute, value, autocrlf=autocrlf, eol_crlf=eol_crlf):
                converted.add(name[len(self.prefix) :])
        return converted

    def _filtered(self, path: str, sha: str) -> bytes | None:
        """The blob as a checkout writes it (smudge filter, line endings...)."""
        try:
            return _git(
                ["cat-file", "--filters", f"--path={self.prefix}{path}", sha],
                self.env,
                self.toplevel,
            )
        except GitFailed as exc:
            log.warning("no pre-image for %s: %s", path, exc)
            return None


def _converts(attribute: str, value: str, *, autocrlf: bool, eol_crlf: bool) -> bool:
    """Does a checkout change the bytes of a blob with this attribute value?"""
    if attribute == "text":
        if value == "unset":
            return False
        return autocrlf if value == "unspecified" else autocrlf or eol_crlf
    if attribute == "eol":
        return value == "crlf"
    return value not in {"unspecified", "unset"}  # filter, ident, working-tree-encoding


def _work_tree(root: Path) -> tuple[Path, dict[str, str], Path] | None:
    """(work tree root, the repository's git environment, its index file), or None."""
    try:
        repo = git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, OSError, ValueError):
        return None
    if repo.bare or repo.working_tree_dir is None:
        return None
    env = repository_env(repo)
    return Path(str(repo.working_tree_dir)), env, Path(env["GIT_INDEX_FILE"])


def _prefix(root: Path, toplevel: Path) -> str | None:
    relative = os.path.relpath(os.path.realpath(root), os.path.realpath(toplevel))
    if relative == os.curdir:
        return ""
    if relative.startswith(os.pardir):
        return None
    return Path(relative).as_posix() + "/"


def _private_index(index: Path, scratch: Path) -> dict[str, str]:
    """Copy the user's index (mtime kept: racy-git) into `scratch`; git reads only the copy."""
    copy = scratch / "index"
    with contextlib.suppress(FileNotFoundError):  # none yet: git reads it as empty
        shutil.copy2(index, copy)
    return {"GIT_INDEX_FILE": str(copy), "GIT_OPTIONAL_LOCKS": "0"}


def _unchecked(entries: bytes) -> list[str]:
    """Tracked paths git does not compare with the disk: assume-unchanged (lower-case tag),
    skip-worktree ("S")."""
    if (b"\0" + entries).count(b"\0H ") == entries.count(b"\0"):
        return []  # every entry tagged "H": the usual case, found without splitting
    found = []
    for raw in entries.split(b"\0"):
        if raw and raw[:1] != b"H" and b"\t" in raw:
            found.append(os.fsdecode(raw.partition(b"\t")[2]))
    return found


def _lookup(entries: bytes, paths: Sequence[str]) -> dict[str, tuple[str, str]]:
    """(mode, blob) of the stage-0 entries of `paths` in the listing."""
    if len(paths) > _LOOKUPS_BY_SEARCH:
        wanted = set(paths)
        parsed = (_parse(raw) for raw in entries.split(b"\0"))
        return {entry[0]: entry[1] for entry in parsed if entry is not None and entry[0] in wanted}
    found = {}
    for path in paths:
        needle = b"\t" + os.fsencode(path) + b"\0"
        start = 0
        while (at := entries.find(needle, start)) >= 0:
            entry = _parse(entries[entries.rfind(b"\0", 0, at) + 1 : at + len(needle) - 1])
            if entry is not None and entry[0] == path:
                found[path] = entry[1]
                break
            start = at + 1
    return found


def _parse(raw: bytes) -> tuple[str, tuple[str, str]] | None:
    head, tab, name = raw.partition(b"\t")
    match = _ENTRY.fullmatch(head)
    if not tab or match is None or match[4] != b"0":
        return None
    return os.fsdecode(name), (match[2].decode(), match[3].decode())


def _cat_blobs(shas: Iterable[str], env: dict[str, str], cwd: Path) -> dict[str, bytes]:
    """The raw blobs, one `git cat-file --batch` for all (missing ones left out)."""
    wanted = sorted(set(shas))
    if not wanted:
        return {}
    out = _git(["cat-file", "--batch"], env, cwd, "".join(f"{sha}\n" for sha in wanted).encode())
    blobs: dict[str, bytes] = {}
    at = 0
    while at < len(out):
        end = out.index(b"\n", at)
        header = out[at:end].split(b" ")
        at = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            blobs[header[0].decode()] = out[at : at + size]
            at += size + 1
    return blobs


def _line_endings(env: dict[str, str], cwd: Path) -> tuple[bool, bool]:
    """(`core.autocrlf` is true, `core.eol` is crlf): one `git config` for both."""
    try:
        out = _git(["config", "-z", "--get-regexp", r"^core\.(autocrlf|eol)$"], env, cwd)
    except GitFailed:
        return False, False  # neither is set (git config exits 1)
    values = {}
    for item in out.split(b"\0"):
        key, _newline, value = item.decode(errors="replace").partition("\n")
        values[key.lower()] = value.strip().lower()  # the last one set wins, as in git
    autocrlf = values.get("core.autocrlf") in {"true", "yes", "on", "1"}
    return autocrlf, values.get("core.eol") == "crlf"


def _start(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        ["git", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd
    )


def _finish(process: subprocess.Popen[bytes]) -> bytes:
    try:
        out, err = process.communicate(timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        process.kill()
        process.communicate()
        raise GitFailed("git ls-files timed out") from exc
    if process.returncode != 0:
        raise GitFailed(err.decode(errors="replace").strip() or f"exit {process.returncode}")
    return out


def _git(args: list[str], env: dict[str, str], cwd: Path, data: bytes = b"") -> bytes:
    """Run git with exactly `env` (stdin `data`), its output; GitFailed when it fails."""
    try:
        done = run_git(args, env=env, cwd=cwd, data=data, timeout=GIT_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitFailed(f"git {args[0]}: {exc}") from exc
    if done.returncode != 0:
        raise GitFailed(done.stderr.decode(errors="replace").strip() or f"exit {done.returncode}")
    return done.stdout
