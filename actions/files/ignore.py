"""git's ignore rules, matched in-process (no `git check-ignore`): the one matcher of agent-ls.

Two users. The listing's walk (outside a git work tree) and the index's single-file updates
match the `.gitignore` files of a folder tree (`IgnoreTree`); the checkpoint store matches
everything git applies in a repository (`RepoIgnore`: that tree plus info/exclude, the
global excludes file and the index's tracked files).

`git check-ignore` reads the whole index of the repository on every call (27-29 ms at 100k
committed files); a checkpoint only needs a verdict for the few paths a plan touches. The
rules are the ones git applies, in its order of precedence:
1. `.gitignore` files from the path's folder up to the repository root (deeper first);
2. `$GIT_DIR/info/exclude` (of the common git dir, so worktrees share it);
3. `core.excludesFile` (default `$XDG_CONFIG_HOME/git/ignore`), read with GitPython's config
   reader (system, global and repository levels).
Within one source the last matching pattern wins (`!` re-includes); the first source with
a match decides. A file below an excluded folder is ignored whatever its own rules say (git
cannot re-include it). Patterns are git's wildmatch, through `pathspec.GitIgnoreSpec`.
A tracked file is never ignored: only paths that some rule ignores (rare: a plan rarely
touches them) are checked against the index, with one `git ls-files`.

Each ignore file is parsed once and re-read when its size or mtime changes, so a check
costs a few `stat` calls per folder level of the path: flat in the size of the repository.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from actions.files.gitenv import clean_git_env, run_git

if TYPE_CHECKING:  # GitPython is imported when a repository is opened (`agent-ls search`
    import git  # on a fresh index never does)

log = logging.getLogger(__name__)
_Stamp = tuple[int, int, int]


class Rules:
    """The patterns of one ignore file, matched as git does: a pattern decides about the path
    itself (a file, or a folder), never about a path below a folder it names — that folder's
    own verdict covers its contents. The last matching pattern wins."""

    def __init__(self, lines: list[str]) -> None:
        import pathspec  # here: a search of a fresh index reads no ignore file

        spec = pathspec.GitIgnoreSpec.from_lines(lines)
        self._patterns = [
            (pattern.regex, bool(pattern.include))
            for pattern in reversed(spec.patterns)
            if isinstance(pattern, pathspec.RegexPattern)
            and pattern.regex is not None
            and pattern.include is not None
        ]

    def verdict(self, path: str, *, is_dir: bool) -> bool | None:
        """True: ignored, False: re-included (`!`), None: no pattern matches `path`."""
        for regex, include in self._patterns:
            if _matches(regex, path, is_dir=is_dir):
                return include
        return None


def _matches(regex: re.Pattern[str], path: str, *, is_dir: bool) -> bool:
    """Does the pattern match `path` itself? pathspec's regexes also match what lies below
    a matched folder: the `ps_d` group then holds the "/" after that folder. They are
    searched, as pathspec does: since pathspec 1.0 a few are unanchored (`*` is `.`, `*/`
    is `(?P<ps_d>/)`), so every place they match is looked at."""
    found = regex.search(path)
    marked = "ps_d" in regex.groupindex
    if found is not None and (not marked or found.group("ps_d") is None):
        return True
    if found is not None and any(more.group("ps_d") is None for more in regex.finditer(path)):
        return True
    if not is_dir or not marked:
        return False
    return any(  # folder-only patterns (`build/`) name the folder itself
        found.group("ps_d") is not None and found.start("ps_d") == len(path)
        for found in regex.finditer(path + "/")
    )


class IgnoreFiles:
    """Parsed ignore files, re-read when they change on disk."""

    def __init__(self) -> None:
        self._cache: dict[Path, tuple[_Stamp, Rules]] = {}

    def spec(self, path: Path) -> Rules | None:
        try:
            info = path.stat()
        except OSError:
            return None
        stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
        cached = self._cache.get(path)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        rules = _read_rules(path)
        if rules is not None:
            self._cache[path] = (stamp, rules)
        return rules


def _read_rules(path: Path) -> Rules | None:
    try:
        lines = path.read_bytes().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    return Rules(lines)


class IgnoreTree:
    """The `.gitignore` files of the tree below `root` (a path's folder up to `root`, the
    deepest first), then `sources` (files whose patterns apply from `root`). The first file
    with a matching pattern decides. With `files`, each file is re-read when it changes on
    disk; without, read once (a walk or a batch of checks sees it as it was first needed)."""

    def __init__(
        self, root: Path, files: IgnoreFiles | None = None, sources: Sequence[Path | None] = ()
    ) -> None:
        self.root = root
        self._files = files
        self._read: dict[tuple[str, ...], Rules | None] = {}
        self._sources = [source for source in sources if source is not None]

    def ignored(self, path: str, *, is_dir: bool = False) -> bool:
        """Is `path` (relative to `root`, posix) ignored: excluded, or below an excluded
        folder (git cannot re-include a file there)?"""
        parts = PurePosixPath(path).parts
        for depth in range(1, len(parts)):
            if self._excluded(parts[:depth], is_dir=True):
                return True
        return self._excluded(parts, is_dir=is_dir)

    def excluded(self, path: str, *, is_dir: bool) -> bool:
        """The verdict on `path` alone, its folders not looked at (a walk never enters an
        excluded folder)."""
        return self._excluded(tuple(path.split("/")), is_dir=is_dir)

    def _gitignore(self, folder: tuple[str, ...]) -> Rules | None:
        if self._files is not None:
            return self._files.spec(self.root.joinpath(*folder, ".gitignore"))
        if folder not in self._read:
            self._read[folder] = _read_rules(self.root.joinpath(*folder, ".gitignore"))
        return self._read[folder]

    def _excluded(self, parts: tuple[str, ...], *, is_dir: bool) -> bool:
        for depth in range(len(parts) - 1, -1, -1):  # the deepest .gitignore first
            spec = self._gitignore(parts[:depth])
            if spec is not None:
                verdict = spec.verdict("/".join(parts[depth:]), is_dir=is_dir)
                if verdict is not None:
                    return verdict
        for source in self._sources:
            spec = self._files.spec(source) if self._files is not None else _read_rules(source)
            if spec is not None:
                verdict = spec.verdict("/".join(parts), is_dir=is_dir)
                if verdict is not None:
                    return verdict
        return False


class RepoIgnore:
    """The ignore rules of one repository (its work tree root and common git dir)."""

    def __init__(self, root: Path, files: IgnoreFiles | None = None) -> None:
        import git

        self.root = root
        repo = git.Repo(root)
        exclude = Path(repo.common_dir) / "info" / "exclude"
        sources = [exclude, _excludes_file(repo)]
        self._tree = IgnoreTree(root, files or IgnoreFiles(), sources)
        self._configs = [Path(repo.common_dir) / "config", *_global_configs()]
        self._stamp = _stamps(self._configs)

    def still_valid(self) -> bool:
        """False once the repository or a git configuration file changed (re-read then)."""
        return (self.root / ".git").exists() and _stamps(self._configs) == self._stamp

    def ignored(self, paths: Iterable[str]) -> set[str]:
        """Which of `paths` (relative to the repository root, posix) git ignores."""
        matched = {path for path in paths if self._tree.ignored(path)}
        if matched:
            matched -= self._tracked(matched)
        return matched

    def _tracked(self, paths: set[str]) -> set[str]:
        done = run_git(
            ["--literal-pathspecs", "ls-files", "-z", "--", *sorted(paths)],
            env=clean_git_env(),
            cwd=self.root,
        )
        if done.returncode != 0:
            log.warning("git ls-files failed in %s: %s", self.root, done.stderr.decode().strip())
            return set()
        return {os.fsdecode(name) for name in done.stdout.split(b"\0") if name}


def _global_configs() -> list[Path]:
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return [Path(os.path.expanduser("~/.gitconfig")), Path(xdg) / "git" / "config"]


def _stamps(paths: list[Path]) -> list[_Stamp | None]:
    found: list[_Stamp | None] = []
    for path in paths:
        try:
            info = path.stat()
        except OSError:
            found.append(None)
            continue
        found.append((info.st_mtime_ns, info.st_size, info.st_ino))
    return found


def _excludes_file(repo: git.Repo) -> Path | None:
    """core.excludesFile, or git's default `$XDG_CONFIG_HOME/git/ignore`."""
    try:
        value = repo.config_reader().get_value("core", "excludesfile", "")
    except (OSError, ValueError) as exc:
        log.warning("cannot read the git configuration of %s: %s", repo.working_dir, exc)
        value = ""
    if value:
        return Path(os.path.expanduser(str(value)))
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(xdg) / "git" / "ignore"


_SHARED = IgnoreFiles()
_REPOS: dict[Path, RepoIgnore] = {}
_TOPLEVELS: dict[Path, Path | None] = {}


def repo_ignore(root: Path) -> RepoIgnore | None:
    """The rules of the repository whose work tree root is `root` (None: not usable).
    Shared by every store of the process (each chat turn opens one): the repository is
    found and its configuration read once; its ignore files are re-read when they change."""
    cached = _REPOS.get(root)
    if cached is not None and cached.still_valid():
        return cached
    import git

    try:
        rules = RepoIgnore(root, _SHARED)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, OSError, ValueError) as exc:
        log.warning("cannot read the git repository at %s: %s", root, exc)
        return None
    _REPOS[root] = rules
    return rules


def toplevel(folder: Path) -> Path | None:
    """The work tree root of the repository holding `folder` (GitPython's discovery)."""
    if folder not in _TOPLEVELS:
        _TOPLEVELS[folder] = _find_toplevel(folder)
    found = _TOPLEVELS[folder]
    if found is not None and not (found / ".git").exists():
        _TOPLEVELS[folder] = found = _find_toplevel(folder)  # the repository went away
    return found


def _find_toplevel(folder: Path) -> Path | None:
    import git

    try:
        repo = git.Repo(folder, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, OSError, ValueError):
        return None
    tree = repo.working_tree_dir
    return None if tree is None else Path(os.path.realpath(tree))
