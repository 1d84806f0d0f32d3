"""Project rules: the `AGENTS.md` files the model is told to follow, read for each turn.

Which files, in this order (the later, more specific ones last):
- the user's own `$XDG_CONFIG_HOME/agent-ls/AGENTS.md` (`~/.config` when unset);
- in each workspace folder, the root's `AGENTS.md`, then, for the folder holding the file in
  context (the editor's active file, a file the chat attached, the CLI's current directory),
  the `AGENTS.md` of each folder between the root and that file, root first;
- `CLAUDE.md` wherever a folder has no `AGENTS.md`.
The way down stops at a noise folder (`node_modules`, `.venv`...: `SKIP_DIRS`) or one the
`.gitignore` files ignore: a dependency's or a build's AGENTS.md is not the project's rules,
and its text must not become the model's instructions because its file is open.

Workspace files are read through the folder's confinement (`Workspace.resolve_listed`: a
symlink out of the workspace, into `.git` or to a secret is refused, and the refusal is
reported); the user's file is the user's own. Every read is bounded: all files together give
at most `limit` bytes (32 KB), the cut is said in the prompt and in the report. Invalid
UTF-8 is replaced, not an error. Files are read again on every turn: at most 32 KB, a few
stats, so an edited rules file counts from the next turn on without any cache to go stale.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from actions.errors import PathRefused
from actions.files.ignore import IgnoreTree
from actions.files.listing import in_skipped_dir
from actions.paths import Workspace

RULES_LIMIT = 32 * 1024
RULE_NAMES = ("AGENTS.md", "CLAUDE.md")  # the first one a folder has is its rules file

_INTRO = (
    "Project instructions: the rules files of this workspace and of the user (AGENTS.md, "
    "CLAUDE.md), each under a heading naming its path, the more specific ones last. Follow "
    "them; where two disagree, the later (more specific) one wins, and the user's own "
    "message in the chat wins over all of them."
)


@dataclass(frozen=True)
class RulesFile:
    """One rules file: `shown` names it in the prompt (a model path for a workspace file,
    the path on disk for the user's, `~/` for the home folder), `size` its bytes on disk,
    `text` what was included (`included` bytes of it); `refused`: why it was not read ("" when
    it was)."""

    path: Path
    shown: str
    size: int
    text: str = ""
    included: int = 0
    refused: str = ""

    @property
    def cut(self) -> bool:
        """Not included whole: the limit was reached in or before it."""
        return not self.refused and self.included < self.size


@dataclass(frozen=True)
class ProjectRules:
    """The rules files of one turn, in prompt order, and the limit they were read under."""

    files: tuple[RulesFile, ...]
    limit: int

    @property
    def cut(self) -> bool:
        return any(file.cut for file in self.files)

    def prompt_section(self) -> str:
        """The system prompt's section ("" when there is nothing to follow)."""
        used = [file for file in self.files if file.text]
        if not used:
            return ""
        parts = [_INTRO]
        parts += [f"## {file.shown}\n{file.text.rstrip()}" for file in used]
        if self.cut:
            parts.append(self.cut_note())
        return "\n\n".join(parts)

    def cut_note(self) -> str:
        """What the limit left out, in words (the prompt and `agent-ls doctor` say it)."""
        cut = [file for file in self.files if file.cut]
        said = [
            f"{file.shown} after {file.included} of {file.size} bytes"
            if file.included
            else f"{file.shown} ({file.size} bytes) left out"
            for file in cut
        ]
        cap = _kb(self.limit)
        return f"[The rules files are capped at {cap} in all; cut: {'; '.join(said)}.]"


def user_rules_path() -> Path:
    """The user's own rules file: `$XDG_CONFIG_HOME/agent-ls/AGENTS.md`."""
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(config) / "agent-ls" / "AGENTS.md"


def load_rules(
    workspaces: Sequence[Workspace],
    context: Path | None = None,
    *,
    user_file: Path | None = None,
    limit: int = RULES_LIMIT,
) -> ProjectRules:
    """Read the rules files (blocking: a few stats and at most `limit` bytes).

    `workspaces`: the folders (labelled in a multi-root workspace); `context`: the file or
    folder the user is at (None: the roots only); `user_file`: the user's own file (None:
    not read)."""
    budget = limit
    found: list[RulesFile] = []
    if user_file is not None and os.path.lexists(user_file):
        file = _read(user_file, _home_shortened(user_file), budget)
        found.append(file)
        budget -= file.included
    for workspace in workspaces:
        for relative in _rules_files(workspace, context):
            file = _read_confined(workspace, relative, budget)
            found.append(file)
            budget -= file.included
    return ProjectRules(tuple(found), limit)


def _rules_files(workspace: Workspace, context: Path | None) -> list[str]:
    """The workspace-relative rules files of `workspace`, root first."""
    files: list[str] = []
    for folder in _folder_chain(workspace, context):
        for name in RULE_NAMES:
            relative = f"{folder}/{name}" if folder else name
            if os.path.lexists(workspace.root / relative):
                files.append(relative)
                break
    return files


def _folder_chain(workspace: Workspace, context: Path | None) -> list[str]:
    """The root (""), then each folder from the root down to `context` (a file: its folder)
    when it is inside the workspace, up to the first noise or git-ignored folder."""
    chain = [""]
    if context is None:
        return chain
    absolute = Path(os.path.abspath(context))
    for base in (workspace.root, workspace.real_root):
        if absolute.is_relative_to(base):
            parts = absolute.relative_to(base).parts
            if parts and not absolute.is_dir():
                parts = parts[:-1]
            ignore = IgnoreTree(workspace.root)
            for depth in range(len(parts)):
                folder = "/".join(parts[: depth + 1])
                if in_skipped_dir(folder) or ignore.excluded(folder, is_dir=True):
                    break  # a walk never enters it: neither does the way down
                chain.append(folder)
            break
    return chain


def _read_confined(workspace: Workspace, relative: str, budget: int) -> RulesFile:
    shown = workspace.shown(relative)
    try:
        resolved = workspace.resolve_listed(relative)
    except PathRefused as refused:
        return RulesFile(workspace.root / relative, shown, 0, refused=refused.reason)
    return _read(resolved.absolute, shown, budget)


def _read(path: Path, shown: str, budget: int) -> RulesFile:
    """At most `budget` bytes of the regular file `path`, decoded (bad UTF-8 replaced)."""
    try:
        # O_NONBLOCK: a FIFO named AGENTS.md must not hang the turn (refused just below)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        return RulesFile(path, shown, 0, refused=f"cannot be read ({exc.strerror})")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return RulesFile(path, shown, 0, refused="not a regular file")
        data = _read_at_most(fd, max(budget, 0))
    except OSError as exc:
        return RulesFile(path, shown, 0, refused=f"cannot be read ({exc.strerror})")
    finally:
        os.close(fd)
    whole = len(data) >= info.st_size
    # An incremental decoder holds back a character the cut splits, instead of a U+FFFD.
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    text = decoder.decode(data, final=whole)
    included = len(data) - len(decoder.getstate()[0])
    return RulesFile(path, shown, max(info.st_size, len(data)), text, included)


def _home_shortened(path: Path) -> str:
    """`~/...` for a path in the home folder: the prompt need not carry the user's name."""
    home = Path(os.path.expanduser("~"))
    if home != Path("/") and path.is_relative_to(home):
        return "~/" + path.relative_to(home).as_posix()
    return str(path)


def _read_at_most(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    while size > 0:
        chunk = os.read(fd, min(size, 65536))
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _kb(limit: int) -> str:
    return f"{limit // 1024} KB" if limit % 1024 == 0 else f"{limit} bytes"
