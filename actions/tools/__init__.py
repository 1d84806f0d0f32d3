"""Tools the model can call: manifests (data), implementations (behaviour), the registry.

``default_registry(workspace)`` registers the built-ins ``list_files``, ``read_file``,
``search_files`` (a grep), ``search_docs`` (the retrieval index; ``index_source`` gives the
live index, else the workspace's embedded index is opened and brought up to date on first use)
and ``find_symbol`` (definitions by name, over the same index).
"""

from __future__ import annotations

from actions.paths import Workspace
from actions.tools import find_symbol, list_files, read_file, search_files
from actions.tools import search_docs as docs_tool
from actions.tools.base import Tool, ToolImplementation, ToolResult
from actions.tools.find_symbol import FindSymbol
from actions.tools.list_files import ListFiles, ListFilesConfig
from actions.tools.read_file import ReadFile, ReadFileConfig
from actions.tools.registry import ToolRegistry
from actions.tools.search_docs import IndexSource, SearchDocs
from actions.tools.search_files import SearchFiles, SearchFilesConfig

__all__ = [
    "FindSymbol",
    "ListFiles",
    "ListFilesConfig",
    "ReadFile",
    "ReadFileConfig",
    "SearchDocs",
    "SearchFiles",
    "SearchFilesConfig",
    "Tool",
    "ToolImplementation",
    "ToolRegistry",
    "ToolResult",
    "default_registry",
    "lazy_index",
]


def default_registry(
    workspace: Workspace,
    *,
    list_config: ListFilesConfig | None = None,
    read_config: ReadFileConfig | None = None,
    index_source: IndexSource | None = None,
    index_url: str = "",
    search_docs: bool = True,
) -> ToolRegistry:
    """A registry with the built-in tools bound to ``workspace`` (``search_docs=False``:
    without the index's tool, the workspace index being off)."""
    registry = ToolRegistry()
    registry.register(list_files.MANIFEST, ListFiles(workspace, list_config))
    registry.register(read_file.MANIFEST, ReadFile(workspace, read_config))
    registry.register(search_files.MANIFEST, SearchFiles(workspace))
    if search_docs:
        source = index_source or lazy_index(workspace, index_url)
        registry.register(docs_tool.MANIFEST, SearchDocs(source))
        registry.register(find_symbol.MANIFEST, FindSymbol(source))
    return registry


def lazy_index(workspace: Workspace, url: str) -> IndexSource:
    """The embedded index of ``workspace``, opened and updated once, on the first search."""
    import asyncio

    from actions.index import WorkspaceIndex, open_index
    from actions.index.merged import Searchable

    opened: list[WorkspaceIndex] = []
    lock = asyncio.Lock()

    async def source() -> Searchable:
        async with lock:
            if not opened:
                index = open_index(workspace, url=url)
                await index.update_all()
                opened.append(index)
        return opened[0]

    return source
