"""The folders of a multi-root workspace: their names and which folder a model path is in.

With one folder nothing changes: paths are workspace-relative (``/src/app.ts``). With several,
every path the model sees starts with its folder's name (``/frontend/src/app.ts``), and a path
the model writes is routed thus (`Roots.route`):
- its first component names a folder: that folder (a folder's name wins over a directory of
  the same name inside another folder; ``/backend/frontend/x`` reaches that one);
- otherwise it is accepted unqualified when it exists in exactly one folder (for a new file:
  when its first directory exists in exactly one folder);
- otherwise it is refused, the message naming the folders (ambiguous: the ones that have it).

Names (`folder_names`): a folder's base name; two folders with the same base name are told
apart by their parent folders' names, ``app@client`` and ``app@server`` (more parents when
those are equal too, ``app@a.client``; a number as the last resort).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from actions.errors import PathRefused
from actions.paths import ResolvedPath, Workspace


def folder_names(paths: Sequence[Path]) -> list[str]:
    """One unique, path-safe name per folder, in order (see the module docstring)."""
    bases = [_base(path) for path in paths]
    names = list(bases)
    for base in set(bases):
        group = [index for index, other in enumerate(bases) if other == base]
        if len(group) > 1:
            for index, name in zip(group, _told_apart([paths[i] for i in group]), strict=True):
                names[index] = name
    seen: dict[str, int] = {}
    for index, name in enumerate(names):  # a told-apart name equal to another folder's
        count = seen.get(name, 0)
        seen[name] = count + 1
        if count:
            names[index] = f"{name}#{count + 1}"
    return names


def _base(path: Path) -> str:
    return path.name or "root"


def _told_apart(paths: Sequence[Path]) -> list[str]:
    base = _base(paths[0])
    deepest = max(len(path.parents) for path in paths)
    for depth in range(1, deepest + 1):
        names = []
        for path in paths:
            parents = [parent.name for parent in list(path.parents)[:depth] if parent.name]
            names.append(f"{base}@{'.'.join(reversed(parents))}" if parents else base)
        if len(set(names)) == len(names):
            return names
    return [f"{base}#{index + 1}" for index in range(len(paths))]


@dataclass(frozen=True)
class Root:
    """One folder: its name and its confinement rules (paths shown qualified by the name)."""

    name: str
    workspace: Workspace


class Roots:
    """The folders of the workspace and the routing of model paths to them."""

    def __init__(self, roots: Sequence[Root]) -> None:
        if not roots:
            raise ValueError("a workspace needs at least one folder")
        self.roots = tuple(roots)
        self._by_name = {root.name: root for root in self.roots}

    @classmethod
    def of(cls, workspaces: Sequence[Workspace]) -> Roots:
        """Name the folders; a single one stays unqualified."""
        if len(workspaces) == 1:
            return cls([Root("", workspaces[0])])
        names = folder_names([workspace.root for workspace in workspaces])
        return cls(
            [
                Root(name, workspace.labeled(name))
                for name, workspace in zip(names, workspaces, strict=True)
            ]
        )

    @property
    def multi(self) -> bool:
        return len(self.roots) > 1

    @property
    def names(self) -> list[str]:
        return [root.name for root in self.roots]

    def get(self, name: str) -> Root | None:
        return self._by_name.get(name)

    def listed(self) -> str:
        return ", ".join(f"/{name}" for name in self.names)

    def route(self, model_path: str, *, for_write: bool) -> tuple[Root, str] | None:
        """The folder `model_path` is in and the path inside it; None for the top ``/``
        of a multi-root workspace (every folder). PathRefused when no folder or several fit."""
        if not self.multi:
            return self.roots[0], model_path
        if not isinstance(model_path, str):
            raise PathRefused(repr(model_path), "a path must be a string")
        parts = [part for part in model_path.replace("\\", "/").split("/") if part not in ("", ".")]
        if not parts:
            return None
        root = self._by_name.get(parts[0])
        if root is not None:
            return root, "/" + "/".join(parts[1:])
        absolute = self._absolute(model_path)
        if absolute is not None:
            return absolute
        return self._unqualified(model_path, parts, for_write=for_write)

    def resolve(self, model_path: str, *, for_write: bool) -> ResolvedPath:
        """`Workspace.resolve` across the folders (the top ``/`` is refused: not a file)."""
        routed = self.route(model_path, for_write=for_write)
        if routed is None:
            raise PathRefused(
                model_path, f"is the top of a workspace of several folders ({self.listed()})"
            )
        root, inner = routed
        return root.workspace.resolve(inner, for_write=for_write)

    def _absolute(self, model_path: str) -> tuple[Root, str] | None:
        """An absolute path that starts with one folder's own absolute path."""
        text = model_path.replace("\\", "/")
        for root in self.roots:
            for prefix in {root.workspace.root.as_posix(), root.workspace.real_root.as_posix()}:
                if prefix != "/" and (text == prefix or text.startswith(prefix + "/")):
                    return root, text[len(prefix) :] or "/"
        return None

    def _unqualified(
        self, model_path: str, parts: list[str], *, for_write: bool
    ) -> tuple[Root, str]:
        having = [root for root in self.roots if _exists(root.workspace, model_path)]
        if not having and len(parts) > 1:  # a new file: where its first directory is
            having = [root for root in self.roots if _is_dir(root.workspace, parts[0])]
        if len(having) == 1:
            return having[0], model_path
        inner = "/".join(parts)
        if having:
            named = ", ".join(f"/{root.name}/{inner}" for root in having)
            raise PathRefused(
                model_path,
                f"is ambiguous: it exists in several workspace folders ({named}); "
                "start the path with its folder's name",
            )
        what = "does not exist in any workspace folder" if not for_write else "names no folder"
        raise PathRefused(
            model_path,
            f"{what}; the workspace folders are {self.listed()}: start the path with one of "
            f"them, e.g. /{self.roots[0].name}/{inner}",
        )


def _exists(workspace: Workspace, model_path: str) -> bool:
    """Is the path in this folder (a refused one too: resolving it there says why)?"""
    try:
        return os.path.lexists(workspace.resolve(model_path, for_write=False).absolute)
    except PathRefused:
        return os.path.lexists(os.path.join(workspace.root, model_path.lstrip("/\\")))


def _is_dir(workspace: Workspace, name: str) -> bool:
    try:
        return workspace.resolve(name, for_write=False).absolute.is_dir()
    except PathRefused:
        return False
