"""The built-in tools over a multi-root workspace (see `actions.roots` for path routing).

Each tool routes its ``path`` to one folder and runs that folder's tool, whose output already
names paths qualified by the folder (``/frontend/src/app.ts``). Without a path (or with the top
``/``), ``list_files`` and ``search_files`` cover every folder, one after the other, and
``search_docs`` merges the best passages of every folder's index by score
(``actions.index.merged``); ``find_symbol`` finds definitions in that merged view.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from actions.buffers import BufferSource
from actions.roots import Roots
from actions.tools import find_symbol, list_files, read_file, search_docs, search_files
from actions.tools.base import Tool, ToolResult
from actions.tools.find_symbol import FindSymbol
from actions.tools.list_files import ListFiles, ListFilesConfig
from actions.tools.read_file import ReadFile
from actions.tools.registry import ToolRegistry
from actions.tools.search_docs import IndexSource, SearchDocs
from actions.tools.search_files import Notes, SearchFiles, SearchFilesConfig, render_matches

if TYPE_CHECKING:  # the index (and its stores) is imported when search_docs first runs
    from actions.index.merged import Searchable


def multiroot_registry(
    roots: Roots,
    index_sources: Mapping[str, IndexSource] | None,
    buffers: BufferSource | None = None,
) -> ToolRegistry:
    """The built-in tools over every folder of `roots`; `index_sources`: each folder's
    retrieval index by folder name (None: the index is off, no search_docs); `buffers`: the
    editor's text of files, which read_file shows (None: the disk)."""
    registry = ToolRegistry()
    registry.register(_described(list_files.MANIFEST, roots), RoutedListFiles(roots))
    registry.register(_described(read_file.MANIFEST, roots), ReadFile(roots, buffers=buffers))
    registry.register(_described(search_files.MANIFEST, roots), RoutedSearchFiles(roots))
    if index_sources is not None:
        merged = merged_index(roots, index_sources)
        registry.register(_described(search_docs.MANIFEST, roots), SearchDocs(merged))
        registry.register(_described(find_symbol.MANIFEST, roots), FindSymbol(merged))
    return registry


def _described(manifest: Tool, roots: Roots) -> Tool:
    note = (
        f" The workspace has several folders ({roots.listed()}): every path starts with its "
        f"folder's name, e.g. /{roots.names[0]}/src/main.py."
    )
    return Tool(manifest.name, manifest.description + note, manifest.parameters)


class RoutedListFiles:
    """``list_files`` of one folder, or of every folder (the top ``/``)."""

    name = list_files.NAME

    def __init__(self, roots: Roots, config: ListFilesConfig | None = None) -> None:
        self.roots = roots
        self.config = config or ListFilesConfig()

    async def execute(self, args: Mapping[str, Any]) -> ToolResult:
        routed = self.roots.route(str(args.get("path", "/")), for_write=False)
        if routed is not None:
            root, inner = routed
            return await ListFiles(root.workspace, self.config).execute({"path": inner})
        share = max(1, self.config.max_entries // len(self.roots.roots))
        config = dataclasses.replace(self.config, max_entries=share)
        texts: list[str] = []
        data: dict[str, Any] = {"paths": [], "total": 0, "truncated": 0, "complete": True}
        data |= {"secretsWithheld": 0, "symlinksWithheld": 0, "folders": self.roots.names}
        for root in self.roots.roots:
            result = await ListFiles(root.workspace, config).execute({})
            texts.append(f"/{root.name}/\n{result.text}")
            data["paths"] += [f"/{root.name}", *result.data["paths"]]
            for key in ("total", "truncated", "secretsWithheld", "symlinksWithheld"):
                data[key] += result.data[key]
            data["complete"] = data["complete"] and result.data["complete"]
        return ToolResult.success("\n".join(texts), data)


class RoutedSearchFiles:
    """``search_files`` in one folder or file, or in every folder (no path, or ``/``)."""

    name = search_files.NAME

    def __init__(self, roots: Roots, config: SearchFilesConfig | None = None) -> None:
        self.roots = roots
        self.config = config or SearchFilesConfig()

    async def execute(self, args: Mapping[str, Any]) -> ToolResult:
        routed = self.roots.route(str(args.get("path", "/")), for_write=False)
        if routed is not None:
            root, inner = routed
            search = SearchFiles(root.workspace, self.config)
            return await search.execute({**args, "path": inner})
        matches: list[dict[str, Any]] = []
        truncated = False
        notes = Notes()
        for root in self.roots.roots:
            folder_args = {key: value for key, value in args.items() if key != "path"}
            result = await SearchFiles(root.workspace, self.config).execute(folder_args)
            matches += result.data["matches"]
            truncated = truncated or bool(result.data["truncated"])
            notes.skipped.extend(result.data["skipped"])
        return self._render(str(args["pattern"]), matches, truncated, notes)

    def _render(
        self, pattern: str, matches: list[dict[str, Any]], truncated: bool, notes: Notes
    ) -> ToolResult:
        limit = self.config.max_matches
        more = truncated or len(matches) > limit
        nothing = f"No line matches {pattern!r} in any folder."
        return render_matches(matches[:limit], more, limit, nothing, notes)


def merged_index(roots: Roots, sources: Mapping[str, IndexSource]) -> IndexSource:
    """One searchable view of every folder's index: hits qualified by their folder's name,
    the best `k` of all by score."""

    async def source() -> Searchable:
        from actions.index.merged import MergedIndex

        opened = [(name, await sources[name]()) for name in roots.names if name in sources]
        return MergedIndex(opened)

    return source
