"""Workspace confinement: every path the model names is resolved here or refused.

Rules (SPEC §6), for reads and writes alike unless noted:
- A path is workspace-relative; a leading ``/`` means the workspace root, never the filesystem
  root. An absolute path that already starts with the workspace root's own absolute path is
  mapped onto it. Backslashes are treated as separators (``src\\a.js`` is ``src/a.js``), so
  ``..\\..\\x`` is caught as an escape like ``../../x``.
- ``..`` is resolved lexically and may not climb above the root (``./a/../b`` is fine).
- Refused: empty paths, control and invisible formatting characters (NUL, newline, bidi
  overrides, zero-width), ``~``/``~user``, Windows drives (``C:``) and UNC paths (``\\\\srv``,
  ``//srv``), components over 255 bytes or paths over 4096 bytes, Unicode look-alikes of
  separators (U+FF0F, U+2215...) or of ``.``/``..`` (U+2024, U+FF0E..., detected via NFKC),
  any component named ``.git`` (case-insensitive, look-alikes included), the ``extra_denied``
  locations (the checkpoint store), symlinks — final or parent — that point outside the
  workspace or at a denied location, and dangling symlinks.
- Secret files: names matching the deny list (``.env``, ``*.pem``, ``id_rsa*``,
  ``credentials*``...) and anything under ``.ssh``/``.gnupg``/``.aws`` are refused for every
  operation (read, list, create, update, delete), unless ``allow_secrets`` is set or the path
  matches one of the user's ``secret_allow`` globs (gitignore syntax, e.g. ``.env.test``,
  ``certs/dev.pem``; the ``agentLs.allowSecretFiles`` setting).
- Writes only: the root itself, an existing directory, or a path under an existing file.
- Unicode names are matched as they look: a name equal under NFC to an existing one is that
  file (never a second look-alike beside it); a new name is created in NFC.

Checks run against the filesystem at resolve time; the caller acts right after (the window
between check and use is accepted: the model cannot create symlinks itself).
"""

from __future__ import annotations

import copy
import fnmatch
import os
import re
import stat
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from actions.errors import PathRefused

if TYPE_CHECKING:
    import pathspec

MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255

SECRET_PATTERNS: tuple[str, ...] = (
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "*.kdbx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".npmrc",
    ".pypirc",
    ".netrc",
    "_netrc",
    ".pgpass",
    ".htpasswd",
    ".git-credentials",
    "credentials*",
)
_ANY_SECRET = re.compile("|".join(fnmatch.translate(pattern) for pattern in SECRET_PATTERNS))
SECRET_ALLOWED: tuple[str, ...] = (".env.example", ".env.sample", ".env.template", ".env.dist")
SECRET_DIRS: frozenset[str] = frozenset({".ssh", ".gnupg", ".aws"})

# Characters that render like a path separator but are not one.
_SEPARATOR_LOOKALIKES = frozenset("\uff0f\u2215\u2044\u29f8\u2571\u29f5\u29f9\uff3c\u2216\ufe68")
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad")


@dataclass(frozen=True)
class ResolvedPath:
    """A confined path: ``absolute`` under the root, ``relative`` in posix form ("" = root);
    ``label``: the name of its folder in a multi-root workspace ("" with a single folder)."""

    absolute: Path
    relative: str
    label: str = ""

    @property
    def model_path(self) -> str:
        """The form shown to the model: ``/src/App.jsx`` (``/`` for the root), qualified by
        the folder's label in a multi-root workspace (``/frontend/src/App.jsx``)."""
        return shown_path(self.label, self.relative)

    @property
    def root(self) -> Path:
        """The workspace folder the path is confined to."""
        depth = len(self.relative.split("/")) if self.relative else 0
        return self.absolute.parents[depth - 1] if depth else self.absolute

    @property
    def is_root(self) -> bool:
        return self.relative == ""


class PathResolver(Protocol):
    """What reads and writes a model path: one `Workspace`, or `actions.roots.Roots`."""

    def resolve(self, model_path: str, *, for_write: bool) -> ResolvedPath: ...


class Workspace:
    """One workspace folder and the rules that confine model paths to it."""

    def __init__(
        self,
        root: Path,
        extra_denied: Sequence[Path] = (),
        *,
        allow_secrets: bool = False,
        secret_allow: Sequence[str] = (),
        label: str = "",
    ) -> None:
        """`label`: the folder's name in a multi-root workspace, which qualifies every path
        shown to the model (see `actions.roots`); "" for a single folder."""
        self.root = Path(os.path.abspath(root))
        self.real_root = Path(os.path.realpath(root))
        self.allow_secrets = allow_secrets
        self.secrets = SecretPolicy(secret_allow, allow_all=allow_secrets)
        self.label = label
        self._denied = tuple(self._denied_relatives(extra_denied))

    @property
    def name(self) -> str:
        return self.root.name

    def labeled(self, label: str) -> Workspace:
        """The same folder and rules, its paths shown qualified by `label`."""
        twin = copy.copy(self)
        twin.label = label
        return twin

    def shown(self, relative: str) -> str:
        """How the model sees the workspace-relative path `relative`."""
        return shown_path(self.label, relative)

    def resolve(self, model_path: str, *, for_write: bool) -> ResolvedPath:
        """Map a model path to a confined ``ResolvedPath`` or raise ``PathRefused``."""
        if not isinstance(model_path, str):
            raise PathRefused(repr(model_path), "a path must be a string")
        _check_text(model_path)
        parts = self._on_disk_names(self._components(model_path))
        relative = "/".join(parts)
        self._check_location(model_path, relative, for_write=for_write)
        try:
            self._check_symlinks(model_path, parts, for_write=for_write)
            if for_write:
                self._check_writable(model_path, parts)
        except OSError as exc:
            raise PathRefused(model_path, f"cannot be inspected ({exc.strerror})") from None
        return ResolvedPath(self.root.joinpath(*parts), relative, self.label)

    def resolve_listed(self, relative: str) -> ResolvedPath:
        """A path a listing or a walk found (workspace-relative, as the disk spells it),
        checked by the rules of `resolve` before anything reads it: a denied location, a
        secret file, and a symlink — final or parent — whose target is outside the workspace,
        denied, secret (by the target's own name too) or missing raise ``PathRefused``.
        Every tool and the index read listed files only through this."""
        parts = [part for part in relative.split("/") if part]
        shown = "/".join(parts)
        _check_text(shown)  # a name read_file could not be asked for is not read either
        self._check_location(shown, shown, for_write=False)
        try:
            self._check_symlinks(shown, parts, for_write=False)
        except OSError as exc:
            raise PathRefused(shown, f"cannot be inspected ({exc.strerror})") from None
        return ResolvedPath(self.root.joinpath(*parts), shown, self.label)

    def is_secret(self, relative: str) -> bool:
        """True when ``relative`` is refused by the secret deny list (and not allowed)."""
        return self.secrets.refused(relative) is not None

    def is_denied(self, relative: str) -> bool:
        """True for ``.git`` and ``extra_denied`` locations (used to filter listings)."""
        return _denial_reason(relative, self._denied) is not None

    def _denied_relatives(self, extra_denied: Sequence[Path]) -> list[str]:
        relatives: list[str] = []
        for location in extra_denied:
            absolute = Path(os.path.realpath(self.root / location))
            if absolute == self.real_root or not absolute.is_relative_to(self.real_root):
                continue  # outside the workspace: unreachable once confinement holds
            relatives.append(absolute.relative_to(self.real_root).as_posix())
        return relatives

    def _components(self, raw: str) -> list[str]:
        text = raw.replace("\\", "/")
        for prefix in {self.root.as_posix(), self.real_root.as_posix()}:
            if prefix != "/" and (text == prefix or text.startswith(prefix + "/")):
                text = text[len(prefix) :]
                break
        parts: list[str] = []
        for part in text.split("/"):
            _check_component(raw, part)
            if part in ("", "."):
                continue
            if part == "..":
                if not parts:
                    raise PathRefused(raw, "'..' climbs above the workspace root")
                parts.pop()
                continue
            parts.append(part)
        return parts

    def _on_disk_names(self, parts: list[str]) -> list[str]:
        """Names as the disk spells them: a non-ASCII name that equals an existing one
        under NFC is that one (NFD ``café`` is the NFC ``café`` on screen); a new one is NFC."""
        names: list[str] = []
        folder = self.root
        for part in parts:
            name = part
            if not part.isascii() and not os.path.lexists(folder / part):
                name = unicodedata.normalize("NFC", part)
                try:
                    siblings = os.listdir(folder)
                except OSError:
                    siblings = []
                for sibling in siblings:
                    if unicodedata.normalize("NFC", sibling) == name:
                        name = sibling
                        break
            names.append(name)
            folder = folder / name
        return names

    def _check_location(self, raw: str, relative: str, *, for_write: bool) -> None:
        reason = _denial_reason(relative, self._denied)
        if reason is not None:
            raise PathRefused(raw, reason)
        pattern = self.secrets.refused(relative)
        if pattern is not None:
            what = "written" if for_write else "read"
            raise PathRefused(
                raw,
                f"matches the secret deny list ({pattern!r}): secret files are never {what} "
                "by agent-ls unless the user allows them (setting agentLs.allowSecretFiles)",
            )

    def _check_symlinks(self, raw: str, parts: Sequence[str], *, for_write: bool) -> None:
        current = str(self.root)
        for index, part in enumerate(parts):
            current = os.path.join(current, part)
            try:
                if not stat.S_ISLNK(os.lstat(current).st_mode):
                    continue
            except (FileNotFoundError, NotADirectoryError):
                return  # nothing below a missing component can be a symlink
            shown = "/".join(parts[: index + 1])
            target = Path(os.path.realpath(current))
            if not target.exists():
                raise PathRefused(raw, f"{shown!r} is a dangling symlink")
            if target != self.real_root and not target.is_relative_to(self.real_root):
                raise PathRefused(raw, f"symlink {shown!r} points outside the workspace")
            real_relative = (
                "" if target == self.real_root else target.relative_to(self.real_root).as_posix()
            )
            try:
                self._check_location(raw, real_relative, for_write=for_write)
            except PathRefused as refused:
                reason = f"symlink {shown!r} points to {real_relative!r}: {refused.reason}"
                raise PathRefused(raw, reason) from None

    def _check_writable(self, raw: str, parts: Sequence[str]) -> None:
        if not parts:
            raise PathRefused(raw, "the workspace root itself cannot be written")
        target = self.root.joinpath(*parts)
        if target.is_dir():
            raise PathRefused(raw, "is an existing directory, not a file")
        parent = self.root
        for part in parts[:-1]:
            parent = parent / part
            if parent.exists() and not parent.is_dir():
                raise PathRefused(raw, f"{parent.relative_to(self.root).as_posix()!r} is a file")


def qualified(label: str, relative: str) -> str:
    """A plan's and a checkpoint group's name of a file: ``relative``, or ``label/relative``
    for a folder of a multi-root workspace."""
    return f"{label}/{relative}" if label else relative


def shown_path(label: str, relative: str) -> str:
    """``/relative``, or ``/label/relative`` for a folder of a multi-root workspace."""
    return "/" + "/".join(part for part in (label, relative) if part)


def _check_text(raw: str) -> None:
    if not raw.strip():
        raise PathRefused(raw, "empty path")
    for char in raw:
        if unicodedata.category(char) in _CONTROL_CATEGORIES:
            raise PathRefused(raw, f"contains the control character U+{ord(char):04X}")
        if char in _INVISIBLE or unicodedata.bidirectional(char) in _BIDI_CONTROLS:
            raise PathRefused(raw, f"contains the invisible character U+{ord(char):04X}")
    if len(raw.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        raise PathRefused(raw[:60] + "...", f"path longer than {MAX_PATH_BYTES} bytes")
    if raw.startswith("~"):
        raise PathRefused(raw, "home-directory paths (~) are outside the workspace")
    if len(raw) >= 2 and raw[1] == ":" and raw[0].isascii() and raw[0].isalpha():
        raise PathRefused(raw, "Windows drive paths are outside the workspace")
    if raw.startswith(("\\\\", "//", "/\\", "\\/")):
        raise PathRefused(raw, "UNC / network paths are outside the workspace")


_CONTROL_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
_BIDI_CONTROLS = frozenset({"LRE", "RLE", "PDF", "LRO", "RLO", "LRI", "RLI", "FSI", "PDI"})


def _check_component(raw: str, part: str) -> None:
    if len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        raise PathRefused(raw[:60] + "...", f"a name is longer than {MAX_NAME_BYTES} bytes")
    if any(char in _SEPARATOR_LOOKALIKES for char in part):
        raise PathRefused(raw, "contains a look-alike of a path separator")
    normal = unicodedata.normalize("NFKC", part)
    if "/" in normal or "\\" in normal:
        raise PathRefused(raw, "contains a look-alike of a path separator")
    if normal.strip() in (".", "..") and part not in (".", ".."):
        raise PathRefused(raw, "contains a look-alike of '.' or '..'")
    if normal.casefold().strip() == ".git" and part != normal:
        raise PathRefused(raw, "contains a look-alike of '.git'")


def _denial_reason(relative: str, denied: Sequence[str]) -> str | None:
    parts = relative.split("/") if relative else []
    if any(part.casefold() == ".git" for part in parts):
        return "the .git folder is off limits"
    for location in denied:
        if relative == location or relative.startswith(location + "/"):
            return "inside the checkpoint store (a protected location)"
    return None


class SecretPolicy:
    """The secret deny list with the user's allow-list (gitignore-style globs) on top."""

    def __init__(self, allow: Sequence[str] = (), *, allow_all: bool = False) -> None:
        self.allow_all = allow_all
        self._allow = _spec(allow) if allow else None

    def refused(self, relative: str) -> str | None:
        """The deny-list pattern `relative` matches, or None when it is not refused."""
        if self.allow_all:
            return None
        pattern = secret_pattern(relative)
        if pattern is None or (self._allow is not None and self._allow.match_file(relative)):
            return None
        return pattern


def secret_pattern(relative: str) -> str | None:
    """The deny-list pattern a workspace-relative path matches (``.ssh/`` for its folders)."""
    parts = relative.split("/") if relative else []
    if not parts:
        return None
    for part in parts[:-1]:
        if part.casefold() in SECRET_DIRS:
            return part + "/"
    name = parts[-1].casefold()
    if name in SECRET_DIRS:
        return name + "/"
    if name in SECRET_ALLOWED or _ANY_SECRET.match(name) is None:
        return None
    for pattern in SECRET_PATTERNS:
        if fnmatch.fnmatchcase(name, pattern):
            return pattern
    return None


def _spec(lines: Sequence[str]) -> pathspec.GitIgnoreSpec:
    import pathspec  # here: only an allow-list needs it (a search never loads it otherwise)

    return pathspec.GitIgnoreSpec.from_lines(list(lines))
