"""Running git safely: never redirected by the GIT_* variables the server inherited.

`clean_git_env` drops them (the checkpoint store's own git runs); `repository_env` names a
repository GitPython found explicitly (the listing's `git ls-files`)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only named in a signature: `agent-ls search` never loads GitPython
    import git


NO_COMMANDS = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor"}
"""Config given to every git agent-ls runs (git >= 2.31 reads it from the environment, as
``-c``): a repository's own ``core.fsmonitor`` names a command git runs when it lists or
scans the work tree (``ls-files -o``, ``status``); a crafted ``.git/config`` (an unpacked
archive, a folder someone else owns) must not run anything because a workspace was opened."""


def clean_git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The process environment without the user's GIT_* variables (`NO_COMMANDS` in their
    place), plus `extra`."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(NO_COMMANDS, GIT_CONFIG_VALUE_0="false")
    env["GIT_TERMINAL_PROMPT"] = "0"
    if extra:
        env.update(extra)
    return env


def run_git(
    args: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path | None = None,
    data: bytes = b"",
    timeout: float | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run git with exactly `env` (never inheriting GIT_DIR & co.); output captured."""
    return subprocess.run(
        ["git", *args],
        input=data,
        capture_output=True,
        env=dict(env),
        cwd=cwd,
        check=False,
        timeout=timeout,
    )


def repository_env(repo: git.Repo) -> dict[str, str]:
    """The repository GitPython found, named explicitly to git: GIT_* variables the server
    inherited (GIT_DIR, GIT_INDEX_FILE... set by a hook or a terminal) cannot redirect it."""
    return paths_env(str(repo.git_dir), str(repo.working_tree_dir), str(repo.common_dir))


def paths_env(git_dir: str, work_tree: str, common_dir: str) -> dict[str, str]:
    """A repository named explicitly to git by its directories (see `repository_env`)."""
    return {
        "GIT_DIR": git_dir,
        "GIT_WORK_TREE": work_tree,
        "GIT_COMMON_DIR": common_dir,
        "GIT_INDEX_FILE": os.path.join(git_dir, "index"),
        "GIT_OBJECT_DIRECTORY": os.path.join(common_dir, "objects"),
        "GIT_TERMINAL_PROMPT": "0",
    }


def work_tree_env(folder: Path, timeout: float) -> dict[str, str] | None:
    """The environment (`clean_git_env`) naming the repository whose work tree holds `folder`
    (`paths_env`),
    found by `git rev-parse` run without the inherited GIT_* variables; None when `folder`
    is in no work tree (a bare repository, a `.git` folder, none at all) or git is missing.
    One git process instead of GitPython (its import alone is ~0.07 CPU s of a command).
    Like GitPython's discovery, a repository owned by another user is found (`safe.directory`
    for this query only): `git ls-files` naming it explicitly lists it, as before."""
    args = ["-c", "safe.directory=*", "rev-parse", "--is-bare-repository"]
    args += ["--absolute-git-dir", "--git-common-dir", "--show-toplevel"]
    try:
        done = run_git(args, env=clean_git_env(), cwd=folder, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = os.fsdecode(done.stdout).split("\n")
    if done.returncode != 0 or len(lines) != 5 or lines[0] != "false":
        return None
    git_dir, common, work_tree = lines[1:4]
    # the rest of the environment kept: HOME names the user's global excludes file
    return clean_git_env(paths_env(git_dir, work_tree, os.path.join(folder, common)))
